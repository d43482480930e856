//! The delay line's journal: what the public has not seen yet, on disk, so
//! that a daemon restart neither publishes anything early nor loses it.
//!
//! One file of JSON lines. `{"push":{...}}` records an item as it enters
//! the line; `{"released":N}` records that every item up to sequence
//! number `N` has been published (items leave in order, so one number
//! says it all); `{"withdrawn":[N,...]}` records that the items so
//! numbered left the line unreleased (a correction withdrew them, see
//! [`crate::delay::fold`]): they are never published. A rewrite ([`Journal::compact`], written aside and
//! renamed, so a crash during it leaves the old file) starts the file with
//! `{"view":{"seq":N,"data":...}}`, the owner's snapshot of what the public
//! has seen up to item `N` (opaque JSON here), and `{"shown":{...}}`, the
//! last item published, so a reader knows where the public stands even
//! when nothing waits. Opening the file reads it back ([`Recovered`]): the
//! snapshot, the items released after it, the items still waiting.
//!
//! Design: a journal is read back after the worst moments (a power cut, a
//! full disk), so reading never fails on content: a line that is not a
//! record (cut short by a crash, torn by a full disk) is skipped and
//! counted, and the owner treats a journal with skipped lines as a doubt
//! (see [`crate::delay::PublicView::restore`]: whatever is newer than
//! now − delay is then held). Only I/O errors are errors.

use std::fs::{self, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::Delayed;
use crate::sink::append::open_append;

/// Records appended since the last rewrite after which [`Journal::compact`]
/// is worth doing.
const COMPACT_AFTER: usize = 20_000;

/// A journal that cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file could not be opened, read or rewritten.
    #[error("{path}: {error}")]
    Io {
        /// The journal file.
        path: PathBuf,
        /// What failed.
        error: io::Error,
    },
}

/// A journal line, as read back.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Record<T> {
    Push(Delayed<T>),
    Released(u64),
    Withdrawn(Vec<u64>),
    Shown(Delayed<T>),
    View(View),
}

/// The owner's snapshot of the public view, as of item `seq`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct View {
    /// The last item the snapshot includes.
    pub seq: u64,
    /// The snapshot.
    pub data: serde_json::Value,
}

/// A journal line, as written (the same shape, borrowed).
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum RecordRef<'a, T> {
    Push(&'a Delayed<T>),
    Released(u64),
    Withdrawn(&'a [u64]),
    Shown(&'a Delayed<T>),
    View(&'a View),
}

/// What a journal held when it was opened.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovered<T> {
    /// The owner's last snapshot of the public view, if any.
    pub view: Option<View>,
    /// Items released after the snapshot, oldest first: the public view is
    /// the snapshot with these applied.
    pub released: Vec<Delayed<T>>,
    /// The items not released yet, oldest first.
    pub pending: Vec<Delayed<T>>,
    /// The last item released (where the public stands), when the file
    /// says.
    pub shown: Option<Delayed<T>>,
    /// Lines that were not records, skipped (a last line cut short by a
    /// crash not counted: what it held was never flushed).
    pub skipped: usize,
    /// Whether there was a file at all.
    pub existed: bool,
}

impl<T> Recovered<T> {
    /// Nothing recovered: no file.
    fn none() -> Recovered<T> {
        Recovered {
            view: None,
            released: Vec::new(),
            pending: Vec::new(),
            shown: None,
            skipped: 0,
            existed: false,
        }
    }
}

/// A journal, appending.
///
/// Design: no file handle is kept between records: each record opens the
/// file, appends its line and closes it, so a hub with hundreds of boards
/// holds no descriptor per board (records come a few per move).
#[derive(Debug)]
pub struct Journal<T> {
    path: PathBuf,
    appended: usize,
    _items: PhantomData<fn(T) -> T>,
}

impl<T: Serialize + DeserializeOwned + Clone> Journal<T> {
    /// Opens (or creates) the journal at `path` and returns it with what
    /// it held. The owner then rewrites it with [`Journal::compact`].
    pub fn open(path: &Path) -> Result<(Journal<T>, Recovered<T>), JournalError> {
        let io_err = |error| JournalError::Io {
            path: path.to_path_buf(),
            error,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(io_err)?;
        }
        let existed = path.exists();
        // A last line cut short goes first: the next record must not join it.
        let (file, _) = open_append(path, "delayed view's journal").map_err(io_err)?;
        let recovered = if file.metadata().map_err(io_err)?.len() == 0 && !existed {
            Recovered::none()
        } else {
            read(BufReader::new(file)).map_err(io_err)?
        };
        let journal = Journal {
            path: path.to_path_buf(),
            appended: 0,
            _items: PhantomData,
        };
        Ok((journal, recovered))
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records an item entering the line, and writes it out.
    pub fn pushed(&mut self, d: &Delayed<T>) -> io::Result<()> {
        self.append(&RecordRef::Push(d))
    }

    /// Records that every item up to `seq` has been published.
    pub fn released(&mut self, seq: u64) -> io::Result<()> {
        self.append(&RecordRef::<T>::Released(seq))
    }

    /// Records that the items numbered `seqs` left the line unreleased.
    pub fn withdrawn(&mut self, seqs: &[u64]) -> io::Result<()> {
        self.append(&RecordRef::<T>::Withdrawn(seqs))
    }

    /// Whether enough has been appended that [`Journal::compact`] would
    /// shrink the file noticeably.
    pub fn wants_compaction(&self) -> bool {
        self.appended >= COMPACT_AFTER
    }

    /// Rewrites the file with only `view`, the owner's snapshot of what
    /// the public has seen up to `shown`, the last item published, and
    /// `pending`, the items still waiting.
    pub fn compact<'a>(
        &mut self,
        view: Option<serde_json::Value>,
        shown: Option<&Delayed<T>>,
        pending: impl Iterator<Item = &'a Delayed<T>>,
    ) -> io::Result<()>
    where
        T: Clone + 'a,
    {
        let pending: Vec<Delayed<T>> = pending.cloned().collect();
        let view = view.map(|data| View {
            seq: shown.map_or(0, |d| d.seq),
            data,
        });
        rewrite(&self.path, view.as_ref(), shown, &pending)?;
        self.appended = 0;
        Ok(())
    }

    fn append(&mut self, record: &RecordRef<'_, T>) -> io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        let mut file = OpenOptions::new().append(true).open(&self.path)?;
        file.write_all(&line)?;
        self.appended += 1;
        Ok(())
    }
}

/// Reads the records of a journal, skipping lines that are not records.
fn read<T: DeserializeOwned + Clone>(reader: impl BufRead) -> io::Result<Recovered<T>> {
    let mut items: Vec<Delayed<T>> = Vec::new();
    let mut shown: Option<Delayed<T>> = None;
    let mut view: Option<View> = None;
    let mut released = 0;
    let mut skipped = 0;
    let mut reader = reader;
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        // A line without its newline is the last one, cut short.
        let last = line.last() != Some(&b'\n');
        if !last {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record<T>>(&line) {
            Ok(Record::Push(d)) => items.push(d),
            Ok(Record::Released(seq)) => released = released.max(seq),
            Ok(Record::Withdrawn(seqs)) => items.retain(|d| !seqs.contains(&d.seq)),
            Ok(Record::Shown(d)) => {
                released = released.max(d.seq);
                shown = Some(d);
            }
            Ok(Record::View(v)) => view = Some(v),
            // A crash can cut the last line short: what it held was not
            // flushed. A line torn anywhere else is damage.
            Err(_) if last => {}
            Err(_) => skipped += 1,
        }
    }
    items.sort_by_key(|d| d.seq);
    // The last item released whose record is still there.
    if let Some(last) = items.iter().rev().find(|d| d.seq <= released)
        && shown.as_ref().is_none_or(|s| s.seq < last.seq)
    {
        shown = Some(last.clone());
    }
    let since = view.as_ref().map_or(0, |v| v.seq);
    let (done, pending): (Vec<_>, Vec<_>) = items.into_iter().partition(|d| d.seq <= released);
    let recovered = Recovered {
        view,
        released: done.into_iter().filter(|d| d.seq > since).collect(),
        pending,
        shown,
        skipped,
        existed: true,
    };
    Ok(recovered)
}

fn rewrite<T: Serialize>(
    path: &Path,
    view: Option<&View>,
    shown: Option<&Delayed<T>>,
    pending: &[Delayed<T>],
) -> io::Result<()> {
    let mut out = Vec::new();
    let records = view
        .map(RecordRef::View)
        .into_iter()
        .chain(shown.map(RecordRef::Shown))
        .chain(pending.iter().map(RecordRef::Push));
    for r in records {
        serde_json::to_writer(&mut out, &r).map_err(io::Error::other)?;
        out.push(b'\n');
    }
    crate::sink::folder::write_atomic(path, &out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delay::DelayLine;

    fn journal_path() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("delay").join("public.jsonl");
        (dir, path)
    }

    /// Issue 42: a hub kept one open file per board's journal. Two
    /// hundred journals written to hold no descriptor between records
    /// (Linux: counted in /proc/self/fd; a margin for other tests'
    /// files when they share the process).
    #[cfg(target_os = "linux")]
    #[test]
    fn journals_hold_no_file_open_between_records() {
        let open = || std::fs::read_dir("/proc/self/fd").expect("fds").count();
        let dir = tempfile::tempdir().expect("temp dir");
        let before = open();
        let mut journals = Vec::new();
        let mut line = DelayLine::new(1_000);
        for board in 0..200 {
            let path = dir.path().join(format!("{board}.public.jsonl"));
            let (mut j, _) = Journal::<String>::open(&path).expect("open");
            let d = line.push(board, "e4".to_string()).clone();
            j.pushed(&d).expect("push");
            journals.push(j);
        }
        let held = open().saturating_sub(before);
        assert!(held < 50, "{held} files held open by 200 journals");
        assert_eq!(journals.len(), 200);
    }

    #[test]
    fn items_not_yet_released_survive_a_restart() {
        let (_dir, path) = journal_path();
        {
            let (mut j, rec) = Journal::<String>::open(&path).expect("open");
            assert!(rec.pending.is_empty() && !rec.existed);
            let mut line = DelayLine::new(1_000);
            for (t, m) in [(0, "e4"), (10, "e5"), (20, "Nf3")] {
                let d = line.push(t, m.to_string()).clone();
                j.pushed(&d).expect("push");
            }
            let first = line.pop_due(1_000).expect("due");
            j.released(first.seq).expect("release");
        }
        let (_, rec) = Journal::<String>::open(&path).expect("reopen");
        let items: Vec<_> = rec.pending.iter().map(|d| d.item.as_str()).collect();
        assert_eq!(items, ["e5", "Nf3"]);
        assert_eq!(rec.pending[0].made_ms, 10);
        assert_eq!(rec.shown.as_ref().map(|d| d.item.as_str()), Some("e4"));
        assert_eq!(rec.skipped, 0);
        // Rewritten with the pending items, the last one shown and a view.
        let (mut j, _) = Journal::<String>::open(&path).expect("reopen");
        j.compact(
            Some("e4 seen".into()),
            rec.shown.as_ref(),
            rec.pending.iter(),
        )
        .unwrap();
        let text = fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(text.lines().next().unwrap().starts_with("{\"view\""));
        // Read again, it says the same, with the view.
        j.released(2).unwrap();
        drop(j);
        let (_, again) = Journal::<String>::open(&path).expect("reopen");
        assert_eq!(
            again.view.map(|v| (v.seq, v.data)),
            Some((1, "e4 seen".into()))
        );
        let released: Vec<_> = again.released.iter().map(|d| d.item.as_str()).collect();
        assert_eq!(released, ["e5"]);
        assert_eq!(again.pending, rec.pending[1..]);
    }

    #[test]
    fn a_last_line_cut_short_is_ignored() {
        let (_dir, path) = journal_path();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            &path,
            "{\"push\":{\"seq\":1,\"made_ms\":5,\"item\":\"e4\"}}\n{\"push\":{\"seq\":2,\"ma",
        )
        .unwrap();
        let (mut j, rec) = Journal::<String>::open(&path).expect("open");
        assert_eq!(rec.pending.len(), 1);
        assert_eq!(rec.pending[0].item, "e4");
        assert_eq!(rec.skipped, 0, "a torn last line is no damage");
        // What comes next is not glued to the torn line.
        j.released(1).unwrap();
        drop(j);
        let (_, rec) = Journal::<String>::open(&path).expect("reopen");
        assert!(rec.pending.is_empty());
        assert_eq!(rec.shown.map(|d| d.item), Some("e4".to_string()));
    }

    #[test]
    fn a_bad_line_in_the_middle_is_skipped_and_counted() {
        let (_dir, path) = journal_path();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            &path,
            "{\"push\":{\"seq\":1,\"made_ms\":5,\"item\":\"e4\"}}\ngarbage\n{\"released\":1}\n",
        )
        .unwrap();
        let (_, rec) = Journal::<String>::open(&path).expect("a torn line is no error");
        assert_eq!(rec.skipped, 1);
        assert!(rec.pending.is_empty());
        assert_eq!(rec.shown.map(|d| d.item), Some("e4".to_string()));
    }

    #[test]
    fn withdrawn_items_never_come_back_even_when_later_ones_were_released() {
        let (_dir, path) = journal_path();
        {
            let (mut j, _) = Journal::<String>::open(&path).expect("open");
            let mut line = DelayLine::new(0);
            for m in ["e4", "Nf6", "e5"] {
                let d = line.push(0, m.to_string()).clone();
                j.pushed(&d).unwrap();
            }
            // Nf6 (seq 2) withdrawn; e4 released, Nc6 queued, e5 released
            // (a mark past the withdrawn one).
            line.withdraw(&[2]);
            j.withdrawn(&[2]).unwrap();
            let d = line.pop_due(0).unwrap();
            j.released(d.seq).unwrap();
            let d = line.push(1, "Nc6".to_string()).clone();
            j.pushed(&d).unwrap();
            let d = line.pop_due(0).unwrap();
            j.released(d.seq).unwrap();
        }
        let (_, rec) = Journal::<String>::open(&path).expect("reopen");
        let released: Vec<_> = rec.released.iter().map(|d| d.item.as_str()).collect();
        assert_eq!(released, ["e4", "e5"]);
        let pending: Vec<_> = rec.pending.iter().map(|d| d.item.as_str()).collect();
        assert_eq!(pending, ["Nc6"]);
        assert_eq!(rec.skipped, 0);
    }

    #[test]
    fn compaction_keeps_only_what_waits() {
        let (_dir, path) = journal_path();
        let (mut j, _) = Journal::<u32>::open(&path).expect("open");
        let mut line = DelayLine::new(0);
        for i in 0..10 {
            let d = line.push(i, i as u32).clone();
            j.pushed(&d).unwrap();
        }
        for _ in 0..7 {
            let d = line.pop_due(100).unwrap();
            j.released(d.seq).unwrap();
        }
        j.compact(None, None, line.pending()).unwrap();
        let d = line.push(50, 99).clone();
        j.pushed(&d).unwrap();
        drop(j);
        let (_, rec) = Journal::<u32>::open(&path).expect("reopen");
        let items: Vec<_> = rec.pending.iter().map(|d| d.item).collect();
        assert_eq!(items, [7, 8, 9, 99]);
    }
}
