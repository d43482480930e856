//! The PGN folder relay tools read, in the layout DGT LiveChess writes:
//!
//! ```text
//! <dir>/tournament.json        {"id", "name", "rounds": [{"count", "live"}]}
//! <dir>/round-<r>/index.json   {"pairings": [{"white": {...}, "black": {...}, "result", "live"}]}
//! <dir>/round-<r>/game-<b>.pgn one file per game (board b)
//! <dir>/round-<r>/games.pgn    every game of the round, in board order
//! <dir>/round-<r>/results.trf  the TRF pairings file with the round's results
//!                              (only when the pairings come from a TRF file)
//! ```
//!
//! Every file is written to a temporary file of its own in the same folder
//! and then renamed over the old one, so a reader never sees half a file
//! ([`write_atomic`]; the folder is synced after the rename). A round's
//! files are only ever written while that round is played: a later round
//! never touches them.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::pgn::{Tags, render};
use super::record::GameRecord;
use crate::tournament::{EventInfo, Pairing, Player};

/// Writes `bytes` to `path` atomically: [`Staged`] (a temporary file of
/// its own beside it, written and synced), then renamed over `path`, and
/// the folder synced so the rename itself survives a power cut. On an
/// error the old file stays as it was and no temporary file is left.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    Staged::write(path, bytes)?.rename()?;
    sync_dir(dir)
}

/// A file written whole beside its place and synced, not yet in it: the
/// first half of an atomic write, so that several files can be written
/// (where a full disk fails) before any of them replaces its old copy
/// (a rename, which needs no room). Dropped before [`Staged::rename`],
/// its temporary file is removed.
#[derive(Debug)]
pub struct Staged {
    tmp: PathBuf,
    path: PathBuf,
    renamed: bool,
}

impl Staged {
    /// Writes `bytes` to a temporary file beside `path`, named
    /// `.<name>.<pid>.<n>.tmp` with `n` counted in this process, so that two
    /// writes of one file at once never share it; synced to the disk.
    pub fn write(path: &Path, bytes: &[u8]) -> io::Result<Staged> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = path.parent().unwrap_or(Path::new("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let staged = Staged {
            tmp: dir.join(format!(".{name}.{}.{n}.tmp", std::process::id())),
            path: path.to_owned(),
            renamed: false,
        };
        // On an error, dropping `staged` removes what was written.
        let mut f = std::fs::File::create(&staged.tmp)?;
        f.write_all(bytes)?;
        f.sync_data()?;
        Ok(staged)
    }

    /// The file it will replace.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the temporary file over its place (the folder is not
    /// synced: see [`sync_dir`]).
    pub fn rename(mut self) -> io::Result<()> {
        std::fs::rename(&self.tmp, &self.path)?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.renamed {
            // A full disk or a change given up: no half file left behind.
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Syncs folder `dir` itself, so that the renames and new files in it are
/// on the disk (a no-op where folders cannot be opened, as on Windows).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// The PGN tags of a board's game in a round.
pub fn tags_for(event: &EventInfo, round: u32, board: u32, pairing: Option<&Pairing>) -> Tags {
    let mut tags = Tags {
        event: event.name.clone(),
        site: event.site.clone(),
        date: event.date.clone(),
        round: format!("{round}.{board}"),
        ..Tags::default()
    };
    if let Some(p) = pairing {
        tags.white = p.white.name.clone();
        tags.black = p.black.name.clone();
        for (color, player) in [("White", &p.white), ("Black", &p.black)] {
            if let Some(r) = player.rating {
                tags.extra.push((format!("{color}Elo"), r.to_string()));
            }
            if let Some(t) = &player.title {
                tags.extra.push((format!("{color}Title"), t.clone()));
            }
            if let Some(id) = player.fide_id {
                tags.extra.push((format!("{color}FideId"), id.to_string()));
            }
            if let Some(f) = &player.federation {
                tags.extra.push((format!("{color}Fed"), f.clone()));
            }
        }
    }
    tags
}

/// One board's game in a round, for writing.
#[derive(Clone, Debug)]
pub struct BoardGame<'a> {
    /// Board number.
    pub board: u32,
    /// The players, when paired.
    pub pairing: Option<&'a Pairing>,
    /// The game as published.
    pub record: &'a GameRecord,
}

/// A tournament folder.
#[derive(Debug)]
pub struct Folder {
    root: PathBuf,
    /// Each board's game as last rendered, with the tags it was rendered
    /// with: a round's `games.pgn` re-renders only the games that changed
    /// (a 300-board round otherwise renders 300 games twice a second).
    rendered: Arc<Mutex<HashMap<(u32, u32), Rendered>>>,
}

#[cfg(test)]
thread_local! {
    /// How many games this thread has rendered (the render cache's test).
    pub(crate) static RENDERS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A game's PGN text and the tags it was rendered with.
#[derive(Debug)]
struct Rendered {
    tags: Tags,
    text: Arc<str>,
}

impl Folder {
    /// A folder at `root` (created when first written).
    pub fn new(root: impl Into<PathBuf>) -> Folder {
        Folder {
            root: root.into(),
            rendered: Arc::default(),
        }
    }

    /// `game`'s PGN text in `round` with `tags`: rendered again when its
    /// record `changed` or its tags differ, else the text rendered before.
    fn rendered(&self, round: u32, game: &BoardGame<'_>, tags: Tags, changed: bool) -> Arc<str> {
        let mut cache = self.rendered.lock().expect("rendered games lock");
        let key = (round, game.board);
        match cache.get(&key) {
            Some(r) if !changed && r.tags == tags => Arc::clone(&r.text),
            _ => {
                #[cfg(test)]
                RENDERS.with(|n| n.set(n.get() + 1));
                let text: Arc<str> = render(game.record, &tags).into();
                cache.insert(
                    key,
                    Rendered {
                        tags,
                        text: Arc::clone(&text),
                    },
                );
                text
            }
        }
    }

    /// The folder of a round.
    pub fn round_dir(&self, round: u32) -> PathBuf {
        self.root.join(format!("round-{round}"))
    }

    /// Writes the round's TRF file with its results filled in
    /// (`round-<r>/results.trf`).
    pub fn write_trf_results(&self, round: u32, bytes: &[u8]) -> io::Result<()> {
        write_atomic(&self.round_dir(round).join("results.trf"), bytes)
    }

    /// Writes a whole round: every game's file, `games.pgn` in board order,
    /// `index.json`, and `tournament.json` listing `rounds` rounds.
    pub fn write_round(
        &self,
        event: &EventInfo,
        round: u32,
        rounds: u32,
        games: &[BoardGame<'_>],
    ) -> io::Result<()> {
        self.write_round_changed(event, round, rounds, games, &|_| true)
    }

    /// [`Folder::write_round`], rewriting (and syncing) only the files of
    /// the games on the boards for which `changed` says so; the round's
    /// `games.pgn`, `index.json` and `tournament.json` are written whole.
    pub fn write_round_changed(
        &self,
        event: &EventInfo,
        round: u32,
        rounds: u32,
        games: &[BoardGame<'_>],
        changed: &dyn Fn(u32) -> bool,
    ) -> io::Result<()> {
        let mut games: Vec<&BoardGame<'_>> = games.iter().collect();
        games.sort_by_key(|g| g.board);
        let mut all = String::new();
        let mut pairings = Vec::new();
        for g in &games {
            let tags = tags_for(event, round, g.board, g.pairing);
            let text = self.rendered(round, g, tags, changed(g.board));
            if changed(g.board) {
                let path = self.round_dir(round).join(format!("game-{}.pgn", g.board));
                write_atomic(&path, text.as_bytes())?;
            }
            all.push_str(&text);
            let player = |p: Option<&Player>| {
                let p = p.cloned().unwrap_or_else(|| Player {
                    name: "?".into(),
                    ..Player::default()
                });
                let (first, last) = p.split_name();
                json!({
                    "fname": first,
                    "mname": "",
                    "lname": last,
                    "title": p.title,
                    "federation": p.federation,
                    "fideid": p.fide_id,
                    "rating": p.rating,
                })
            };
            pairings.push(json!({
                "board": g.board,
                "white": player(g.pairing.map(|p| &p.white)),
                "black": player(g.pairing.map(|p| &p.black)),
                "result": g.record.result_token(),
                "live": g.record.result.is_none(),
            }));
        }
        let dir = self.round_dir(round);
        write_atomic(&dir.join("games.pgn"), all.as_bytes())?;
        let index = json!({ "pairings": pairings });
        write_atomic(&dir.join("index.json"), index.to_string().as_bytes())?;
        let live = games.iter().filter(|g| g.record.result.is_none()).count();
        let rounds_json: Vec<_> = (1..=rounds.max(round))
            .map(|r| {
                if r == round {
                    json!({ "count": games.len(), "live": live })
                } else {
                    json!({ "count": self.count_games(r), "live": 0 })
                }
            })
            .collect();
        let tournament = json!({
            "id": slug(&event.name),
            "name": event.name,
            "rounds": rounds_json,
        });
        write_atomic(
            &self.root.join("tournament.json"),
            tournament.to_string().as_bytes(),
        )
    }

    fn count_games(&self, round: u32) -> usize {
        std::fs::read_dir(self.round_dir(round)).map_or(0, |d| {
            d.filter_map(Result::ok)
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.starts_with("game-") && n.ends_with(".pgn")
                })
                .count()
        })
    }
}

fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    s.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_writes_leave_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b.txt");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("a")).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn two_writes_of_one_file_at_once_each_have_their_own_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let first = Staged::write(&path, b"first").unwrap();
        let second = Staged::write(&path, b"second").unwrap();
        assert_ne!(first.tmp, second.tmp);
        // The second write does not clobber the first's temporary file.
        second.rename().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        first.rename().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        // One given up leaves nothing behind.
        drop(Staged::write(&path, b"given up").unwrap());
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
    }

    #[test]
    fn concurrent_atomic_writes_of_one_file_all_succeed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = std::sync::Arc::new(dir.path().join("index.json"));
        let texts: Vec<String> = (0..8).map(|i| format!("{i}").repeat(20_000)).collect();
        let threads: Vec<_> = texts
            .iter()
            .cloned()
            .map(|t| {
                let path = std::sync::Arc::clone(&path);
                std::thread::spawn(move || {
                    for _ in 0..10 {
                        write_atomic(&path, t.as_bytes()).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let kept = std::fs::read_to_string(&*path).unwrap();
        assert!(texts.contains(&kept), "one whole write is kept");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn tags_carry_round_dot_board_and_the_players() {
        let pairing = Pairing {
            board: 4,
            white: Player {
                name: "Carlsen, Magnus".into(),
                fide_id: Some(1503014),
                title: Some("GM".into()),
                federation: Some("NOR".into()),
                rating: Some(2830),
            },
            black: Player {
                name: "Caruana, Fabiano".into(),
                ..Player::default()
            },
        };
        let event = EventInfo {
            name: "Club Open".into(),
            ..EventInfo::default()
        };
        let tags = tags_for(&event, 3, 4, Some(&pairing));
        assert_eq!(tags.round, "3.4");
        assert_eq!(tags.white, "Carlsen, Magnus");
        assert!(tags.extra.contains(&("WhiteElo".into(), "2830".into())));
        assert!(
            tags.extra
                .contains(&("WhiteFideId".into(), "1503014".into()))
        );
        assert!(tags.extra.contains(&("WhiteTitle".into(), "GM".into())));
        assert!(!tags.extra.iter().any(|(k, _)| k.starts_with("Black")));
    }
}
