//! The round being played, live: PGN tags for each board from the event and
//! the pairings (reloadable), operator corrections of players, and the task
//! that keeps the PGN folder ([`super::folder`]) up to date.
//!
//! Boards report their current game record after every change; the writer
//! task rewrites the game's file and its round's `games.pgn`, `index.json`
//! and `tournament.json` at most twice a second (atomically). A game belongs
//! to the round that was current when it started, so a new round never
//! touches an earlier round's files.
//!
//! Design: the board tasks hand in records under a short lock; the writer
//! takes a snapshot under it (shared records, no copies) and writes, with
//! its fsyncs, after letting it go, so a slow disk never stalls a board.
//! Only the files of games that changed since the last write are
//! rewritten (and synced); the round's summaries are rewritten whole.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::Notify;
use tracing::{info, warn};

use super::folder::{BoardGame, Folder, tags_for};
use super::pgn::Tags;
use super::record::GameRecord;
use crate::tournament::{EventInfo, Pairing, Pairings, PairingsError, Player, read_pairings};

#[derive(Debug)]
struct State {
    event: EventInfo,
    pairings: Pairings,
    /// Players fixed by the operator, by board; they win over the file.
    overrides: BTreeMap<u32, Pairing>,
}

/// The live round (shared by every board task and the writer task).
#[derive(Debug)]
pub struct Round {
    state: RwLock<State>,
    pairings_path: Option<PathBuf>,
    folder: Option<Folder>,
    /// The latest record of each (round, board).
    games: Mutex<BTreeMap<(u32, u32), Arc<GameRecord>>>,
    /// Rounds to write, with the boards whose game file changed.
    dirty: Mutex<BTreeMap<u32, BTreeSet<u32>>>,
    notify: Notify,
    /// The last folder write failed (said once).
    failing: std::sync::atomic::AtomicBool,
}

impl Round {
    /// The round of `event`, with the pairings in `fallback` (from the
    /// config's boards), overridden by the pairings file when there is one.
    pub fn new(
        event: EventInfo,
        fallback: Pairings,
        pairings_path: Option<PathBuf>,
        pgn_dir: Option<PathBuf>,
    ) -> Result<Arc<Round>, PairingsError> {
        let round = Arc::new(Round {
            state: RwLock::new(State {
                event,
                pairings: fallback,
                overrides: BTreeMap::new(),
            }),
            pairings_path,
            folder: pgn_dir.map(Folder::new),
            games: Mutex::new(BTreeMap::new()),
            dirty: Mutex::new(BTreeMap::new()),
            notify: Notify::new(),
            failing: std::sync::atomic::AtomicBool::new(false),
        });
        round.reload()?;
        Ok(round)
    }

    /// Reads the pairings file again (on SIGHUP). A file naming a round
    /// moves the event to that round: games started from now on belong to
    /// it. On error the old pairings stay.
    pub fn reload(&self) -> Result<(), PairingsError> {
        let Some(path) = &self.pairings_path else {
            return Ok(());
        };
        let pairings = read_pairings(path)?;
        let mut state = self.state.write().expect("round state lock");
        if let Some(r) = pairings.round {
            state.event.round = r;
        }
        info!(
            round = state.event.round,
            boards = pairings.pairings.len(),
            path = %path.display(),
            "pairings loaded"
        );
        state.pairings = pairings;
        state.overrides.clear();
        Ok(())
    }

    /// The round being played now.
    pub fn current(&self) -> u32 {
        self.state.read().expect("round state lock").event.round
    }

    /// The pairing of a board, operator corrections first.
    pub fn pairing(&self, board: u32) -> Option<Pairing> {
        let state = self.state.read().expect("round state lock");
        state
            .overrides
            .get(&board)
            .or_else(|| state.pairings.board(board))
            .cloned()
    }

    /// The PGN tags of board `board`'s game in round `round`.
    pub fn tags(&self, round: u32, board: u32) -> Tags {
        let pairing = self.pairing(board);
        let state = self.state.read().expect("round state lock");
        tags_for(&state.event, round, board, pairing.as_ref())
    }

    /// The operator fixes the players of a board.
    pub fn set_players(&self, board: u32, white: Player, black: Player) {
        let round = self.current();
        self.set_players_in(round, board, white, black);
    }

    /// Fixes the players of a board whose game belongs to `round` (the hub
    /// learns them from each bridge's state), and marks that round for
    /// writing.
    pub fn set_players_in(&self, round: u32, board: u32, white: Player, black: Player) {
        let mut state = self.state.write().expect("round state lock");
        state.overrides.insert(
            board,
            Pairing {
                board,
                white,
                black,
            },
        );
        drop(state);
        self.mark(round, Some(board));
    }

    /// A board's game changed: remember it for the folder.
    pub fn update(&self, round: u32, board: u32, record: &GameRecord) {
        if self.folder.is_none() {
            return;
        }
        self.games
            .lock()
            .expect("round games lock")
            .insert((round, board), Arc::new(record.clone()));
        self.mark(round, Some(board));
    }

    /// Marks `round` for writing, with `board`'s game file.
    fn mark(&self, round: u32, board: Option<u32>) {
        self.dirty
            .lock()
            .expect("round dirty lock")
            .entry(round)
            .or_default()
            .extend(board);
        self.notify.notify_one();
    }

    /// Writes every round with changes now.
    ///
    /// Returns whether every round was written; a round that could not be
    /// (a full disk) stays to be written again.
    pub fn flush(&self) -> bool {
        let Some(folder) = &self.folder else {
            return true;
        };
        let mut ok = true;
        let rounds = std::mem::take(&mut *self.dirty.lock().expect("round dirty lock"));
        let last = self.current();
        for (round, changed) in rounds {
            // A snapshot under the lock; the files are written without it.
            let games: Vec<(u32, Arc<GameRecord>)> = self
                .games
                .lock()
                .expect("round games lock")
                .iter()
                .filter(|((r, _), _)| *r == round)
                .map(|((_, b), record)| (*b, Arc::clone(record)))
                .collect();
            let pairings: BTreeMap<u32, Option<Pairing>> =
                games.iter().map(|(b, _)| (*b, self.pairing(*b))).collect();
            let list: Vec<BoardGame<'_>> = games
                .iter()
                .map(|(b, record)| BoardGame {
                    board: *b,
                    pairing: pairings.get(b).and_then(Option::as_ref),
                    record,
                })
                .collect();
            let event = self.state.read().expect("round state lock").event.clone();
            let written = folder.write_round_changed(&event, round, last.max(round), &list, &|b| {
                changed.contains(&b)
            });
            if let Err(e) = written {
                if !self
                    .failing
                    .swap(true, std::sync::atomic::Ordering::Relaxed)
                {
                    warn!(round, error = %e, "could not write the PGN folder; retrying every second");
                }
                // Everything of this round is written again.
                let mut dirty = self.dirty.lock().expect("round dirty lock");
                dirty.entry(round).or_default().extend(changed);
                ok = false;
            }
        }
        if ok
            && self
                .failing
                .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            tracing::info!("the PGN folder is written again");
        }
        ok
    }

    /// The writer task: rewrites changed rounds at most twice a second
    /// until `stop` resolves, then writes what is left.
    pub async fn run_writer(self: Arc<Self>, stop: impl std::future::Future<Output = ()>) {
        if self.folder.is_none() {
            return;
        }
        tokio::pin!(stop);
        let mut retry = false;
        loop {
            tokio::select! {
                _ = &mut stop => break,
                _ = self.notify.notified() => {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    let me = Arc::clone(&self);
                    retry = !tokio::task::spawn_blocking(move || me.flush()).await.unwrap_or(true);
                }
                // A write failed: try again every second.
                _ = tokio::time::sleep(Duration::from_secs(1)), if retry => {
                    let me = Arc::clone(&self);
                    retry = !tokio::task::spawn_blocking(move || me.flush()).await.unwrap_or(true);
                }
            }
        }
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use std::os::unix::fs::MetadataExt;
    use std::time::{Duration, Instant};

    use super::*;

    fn record(plies: usize) -> GameRecord {
        GameRecord {
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            sans: vec!["Nf3".into(); plies],
            ucis: vec!["g1f3".into(); plies],
            ..GameRecord::default()
        }
    }

    fn round_in(dir: &std::path::Path) -> Arc<Round> {
        let event = EventInfo {
            round: 1,
            ..EventInfo::default()
        };
        Round::new(event, Pairings::default(), None, Some(dir.to_path_buf())).unwrap()
    }

    // Inodes tell a rewrite: a Unix test.
    #[cfg(unix)]
    #[test]
    fn only_the_games_that_changed_are_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let round = round_in(dir.path());
        for b in 1..=5 {
            round.update(1, b, &record(b as usize));
        }
        assert!(round.flush());
        let file = |b: u32| dir.path().join(format!("round-1/game-{b}.pgn"));
        // A rewrite renames a new file over the old one: a new inode.
        let inodes = || -> Vec<u64> {
            (1..=5)
                .map(|b| std::fs::metadata(file(b)).unwrap().ino())
                .collect()
        };
        let before = inodes();
        round.update(1, 3, &record(9));
        assert!(round.flush());
        let after = inodes();
        let rewritten: Vec<u32> = (1..=5)
            .filter(|&b| before[b as usize - 1] != after[b as usize - 1])
            .collect();
        assert_eq!(rewritten, [3]);
        let all = std::fs::read_to_string(dir.path().join("round-1/games.pgn")).unwrap();
        assert_eq!(all.matches("[Event ").count(), 5);
        assert!(std::fs::read_to_string(file(3)).unwrap().contains("5. Nf3"));
    }

    #[test]
    fn boards_hand_in_their_games_while_the_folder_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let round = round_in(dir.path());
        for b in 1..=150 {
            round.update(1, b, &record(80));
        }
        let writer = {
            let round = Arc::clone(&round);
            std::thread::spawn(move || {
                let at = Instant::now();
                assert!(round.flush());
                at.elapsed()
            })
        };
        // A board task hands in its game over and over while the writer
        // writes (and syncs) 150 files.
        let mut slowest = Duration::ZERO;
        while !writer.is_finished() {
            let at = Instant::now();
            round.update(1, 1, &record(81));
            slowest = slowest.max(at.elapsed());
        }
        let took = writer.join().unwrap();
        assert!(
            slowest * 5 < took.max(Duration::from_millis(25)),
            "a board waited {slowest:?} for a folder write of {took:?}"
        );
    }
}
