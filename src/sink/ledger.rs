//! The round ledger: one entry per (round, pairing board), the game filed
//! under it and how its result came. What the PGN folder, the round PGN,
//! the TRF with results, the report and the desk's round table read.
//!
//! The rule that makes it a ledger: a game that ended with a result
//! (`1-0`, `0-1`, `1/2-1/2`) is *closed*. A later game (the pieces set up
//! again after the game, the next game on that sensor board, another
//! sensor board given the same pairing) never replaces it; only the same
//! game filed again (its result corrected, a takeback past its end) changes
//! it. A game is known by its [`GameKey`]: the sensor board that played it
//! and when it started there.
//!
//! Closed entries are kept in `<recorder>/ledger.jsonl`, one line each time
//! one closes, changes or opens again, so a restart finds every result
//! (see [`Journal`]). The file is appended through [`super::append`], so a
//! line torn by a full disk or a crash never swallows the next.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tracing::{info, warn};

use super::record::GameRecord;

/// Which game a record is: the sensor board that played it and the time
/// (the board's daemon milliseconds) its game started there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameKey {
    /// The sensor board's id.
    pub board: String,
    /// When the game started on it (its record's `started_ms`).
    pub started_ms: u64,
}

impl GameKey {
    /// The key of `record`, played on sensor board `board`.
    pub fn of(board: &str, record: &GameRecord) -> GameKey {
        GameKey {
            board: board.to_string(),
            started_ms: record.started_ms,
        }
    }
}

/// How a game's result came.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The board: the rules ended the game (mate, a flag, a draw the
    /// position gives).
    Board,
    /// The players' result signal: the kings in the centre.
    Kings,
    /// An operator's or arbiter's correction of the board's game.
    Operator,
    /// Typed on the operator's desk for the pairing.
    Typed,
}

impl Source {
    /// How `record`'s result came (`None` while it has none).
    pub fn of(record: &GameRecord) -> Option<Source> {
        if !closed(record) {
            return None;
        }
        Some(match record.reason.as_deref() {
            Some(OPERATOR_RESULT) => Source::Operator,
            Some("kings in the centre") => Source::Kings,
            _ => Source::Board,
        })
    }

    /// The source as the desk and the report name it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Board => "board",
            Source::Kings => "kings",
            Source::Operator => "operator",
            Source::Typed => "typed",
        }
    }
}

/// The reason a result set by the operator carries.
pub const OPERATOR_RESULT: &str = "set by the operator";

/// Whether `record` ended with a result a pairing program takes.
pub fn closed(record: &GameRecord) -> bool {
    matches!(record.result.as_deref(), Some("1-0" | "0-1" | "1/2-1/2"))
}

/// What filing a record did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filed {
    /// The record is the pairing's game now.
    Kept,
    /// The same record was filed already: nothing changed.
    Same,
    /// Another game, closed with `result`, holds the pairing: the record
    /// is not filed.
    Refused {
        /// The game that holds the pairing.
        holder: GameKey,
        /// Its result.
        result: String,
    },
}

/// One view's ledger: the live games (the desk's) or the public ones (the
/// PGN folder's, a broadcast delay behind).
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    entries: BTreeMap<(u32, u32), Entry>,
}

#[derive(Clone, Debug)]
struct Entry {
    key: GameKey,
    record: Arc<GameRecord>,
}

impl Ledger {
    /// Files `record` (game `key`) under board `board` of round `round`,
    /// unless another game closed that pairing.
    pub fn file(
        &mut self,
        round: u32,
        board: u32,
        key: &GameKey,
        record: Arc<GameRecord>,
    ) -> Filed {
        match self.entries.get(&(round, board)) {
            Some(e) if e.key != *key && closed(&e.record) => {
                return Filed::Refused {
                    holder: e.key.clone(),
                    result: e.record.result_token().to_string(),
                };
            }
            Some(e) if e.key == *key && *e.record == *record => return Filed::Same,
            _ => {}
        }
        self.entries.insert(
            (round, board),
            Entry {
                key: key.clone(),
                record,
            },
        );
        Filed::Kept
    }

    /// Puts back an entry read from the journal (it wins over what is
    /// there).
    fn restore(&mut self, round: u32, board: u32, key: GameKey, record: Option<GameRecord>) {
        match record {
            Some(record) => {
                let record = Arc::new(record);
                self.entries.insert((round, board), Entry { key, record });
            }
            None => {
                if self
                    .entries
                    .get(&(round, board))
                    .is_some_and(|e| e.key == key)
                {
                    self.entries.remove(&(round, board));
                }
            }
        }
    }

    /// The game filed under board `board` of round `round`.
    pub fn get(&self, round: u32, board: u32) -> Option<&Arc<GameRecord>> {
        self.entries.get(&(round, board)).map(|e| &e.record)
    }

    /// The rounds with a game filed.
    pub fn of_rounds(&self) -> Vec<u32> {
        let mut rounds: Vec<u32> = self.entries.keys().map(|(r, _)| *r).collect();
        rounds.dedup();
        rounds
    }

    /// The games of `round`, by board, in board order (the records are
    /// shared, not copied).
    pub fn of_round(&self, round: u32) -> Vec<(u32, Arc<GameRecord>)> {
        self.entries
            .range((round, 0)..=(round, u32::MAX))
            .map(|((_, b), e)| (*b, Arc::clone(&e.record)))
            .collect()
    }
}

/// Which of the two ledgers a journal line is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// The live games (the desk's, the TRF with results).
    Live,
    /// The public games (the PGN folder's).
    Public,
}

/// One line of `ledger.jsonl`: a pairing's game closed, changed, or open
/// again (`record` without a result, or none).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Line {
    view: View,
    round: u32,
    board: u32,
    key: GameKey,
    #[serde(default)]
    record: Option<GameRecord>,
}

/// The ledger's file in the recorder folder (`<recorder>/ledger.jsonl`).
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    /// Lines not written yet (the disk was full): written before the next.
    pending: Vec<Vec<u8>>,
    /// The last write failed (said once).
    failing: bool,
}

/// The journal's file name in the recorder folder.
pub const FILE: &str = "ledger.jsonl";

impl Journal {
    /// The journal in `dir`, with what it holds folded into `live` and
    /// `public`. A line that does not read is skipped with a warning.
    pub fn open(dir: &Path, live: &mut Ledger, public: &mut Ledger) -> Journal {
        let path = dir.join(FILE);
        let mut restored = 0;
        if let Ok(text) = std::fs::read_to_string(&path) {
            for (i, l) in text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                match serde_json::from_str::<Line>(l) {
                    Ok(line) => {
                        let ledger = match line.view {
                            View::Live => &mut *live,
                            View::Public => &mut *public,
                        };
                        let record = line.record.filter(closed);
                        ledger.restore(line.round, line.board, line.key, record);
                        restored += 1;
                    }
                    Err(e) => {
                        warn!(file = %path.display(), line = i + 1, error = %e, "a line of the round ledger does not read: skipped");
                    }
                }
            }
        }
        if restored > 0 {
            info!(file = %path.display(), lines = restored, "the round ledger taken up");
        }
        Journal {
            path,
            pending: Vec::new(),
            failing: false,
        }
    }

    /// Notes that `record` (game `key`) was filed under `(round, board)`
    /// of `view`, where `before` stood: a line when a closed game is filed,
    /// changed, or opens again.
    pub fn note(
        &mut self,
        view: View,
        (round, board): (u32, u32),
        key: &GameKey,
        before: Option<&GameRecord>,
        record: &GameRecord,
    ) {
        let was = before.is_some_and(closed);
        if !closed(record) && !was {
            return;
        }
        let line = Line {
            view,
            round,
            board,
            key: key.clone(),
            record: Some(record.clone()),
        };
        let mut bytes = serde_json::to_vec(&line).expect("ledger lines serialise");
        bytes.push(b'\n');
        self.pending.push(bytes);
        self.write();
    }

    /// Writes the lines waiting; keeps them when the disk refuses.
    fn write(&mut self) {
        let written = (|| -> std::io::Result<()> {
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let (mut file, _) = super::append::open_append(&self.path, "the round ledger")?;
            for line in &self.pending {
                file.write_all(line)?;
            }
            file.sync_data()
        })();
        match written {
            Ok(()) => {
                self.pending.clear();
                if std::mem::take(&mut self.failing) {
                    info!(file = %self.path.display(), "the round ledger is written again");
                }
            }
            Err(e) => {
                if !std::mem::replace(&mut self.failing, true) {
                    warn!(file = %self.path.display(), error = %e, "the round ledger cannot be written: a restart now would forget the results since; retried at the next result");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(plies: usize, result: Option<&str>, started_ms: u64) -> Arc<GameRecord> {
        Arc::new(GameRecord {
            sans: vec!["e4".into(); plies],
            result: result.map(str::to_string),
            started_ms,
            ..GameRecord::default()
        })
    }

    fn key(board: &str, started_ms: u64) -> GameKey {
        GameKey {
            board: board.into(),
            started_ms,
        }
    }

    #[test]
    fn a_closed_game_is_changed_only_by_itself() {
        let mut l = Ledger::default();
        assert_eq!(
            l.file(3, 4, &key("b4", 10), game(12, None, 10)),
            Filed::Kept
        );
        // An open game is replaced by a later one (a restart).
        assert_eq!(
            l.file(3, 4, &key("b4", 20), game(11, None, 20)),
            Filed::Kept
        );
        assert_eq!(
            l.file(3, 4, &key("b4", 20), game(12, Some("1/2-1/2"), 20)),
            Filed::Kept
        );
        assert_eq!(
            l.file(3, 4, &key("b4", 20), game(12, Some("1/2-1/2"), 20)),
            Filed::Same
        );
        // The pieces set up again: the next game is refused.
        assert_eq!(
            l.file(3, 4, &key("b4", 90), game(0, None, 90)),
            Filed::Refused {
                holder: key("b4", 20),
                result: "1/2-1/2".into()
            }
        );
        // So is another sensor board given the pairing.
        assert!(matches!(
            l.file(3, 4, &key("b7", 20), game(0, None, 20)),
            Filed::Refused { .. }
        ));
        assert_eq!(l.get(3, 4).unwrap().sans.len(), 12);
        // The game itself corrected (a result set by the operator).
        assert_eq!(
            l.file(3, 4, &key("b4", 20), game(12, Some("1-0"), 20)),
            Filed::Kept
        );
        assert_eq!(l.of_round(3)[0].1.result_token(), "1-0");
        assert!(l.of_round(2).is_empty());
    }

    #[test]
    fn the_journal_gives_back_closed_games_and_forgets_reopened_ones() {
        let dir = tempfile::tempdir().unwrap();
        let (mut live, mut public) = (Ledger::default(), Ledger::default());
        let mut j = Journal::open(dir.path(), &mut live, &mut public);
        let done = game(12, Some("0-1"), 5);
        j.note(View::Live, (1, 1), &key("a", 5), None, &done);
        j.note(View::Public, (1, 1), &key("a", 5), None, &done);
        let other = game(30, Some("1-0"), 7);
        j.note(View::Live, (1, 2), &key("b", 7), None, &other);
        // Board 2's game taken back past its end: open again.
        let open = game(29, None, 7);
        j.note(View::Live, (1, 2), &key("b", 7), Some(&other), &open);
        // An open game filed over nothing closed writes nothing.
        j.note(View::Live, (1, 3), &key("c", 1), None, &game(3, None, 1));
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert_eq!(text.lines().count(), 4);
        // A torn last line (a full disk) loses nothing after it.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(FILE))
            .unwrap();
        f.write_all(b"{\"view\":\"live\",\"rou").unwrap();
        drop(f);
        let mut j = Journal::open(dir.path(), &mut Ledger::default(), &mut Ledger::default());
        j.note(
            View::Live,
            (2, 1),
            &key("a", 99),
            None,
            &game(1, Some("1-0"), 99),
        );
        let (mut live, mut public) = (Ledger::default(), Ledger::default());
        Journal::open(dir.path(), &mut live, &mut public);
        assert_eq!(live.get(1, 1).unwrap().result_token(), "0-1");
        assert_eq!(public.get(1, 1).unwrap().sans.len(), 12);
        assert!(live.get(1, 2).is_none(), "reopened");
        assert!(live.get(1, 3).is_none());
        assert_eq!(live.get(2, 1).unwrap().result_token(), "1-0");
    }
}
