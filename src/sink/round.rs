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
//! When the pairings come from a FIDE TRF file, the writer also keeps
//! `round-<r>/results.trf`: the file with the round's results filled in
//! from the boards (for the pairing program to import), and a board whose
//! game says another result than the file holds is warned about once (and
//! again after each reload).
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
use super::ledger::{Filed, GameKey, Journal, Ledger, Source, View};
use super::pgn::Tags;
use super::record::GameRecord;
use crate::tournament::trf::{Conflict, Trf};
use crate::tournament::{
    EventInfo, Pairing, Pairings, PairingsError, Player, parse_pairings, read_pairings_bytes,
};

#[derive(Debug)]
struct State {
    event: EventInfo,
    pairings: Pairings,
    /// The TRF file the pairings come from, when they do.
    trf: Option<Arc<Trf>>,
    /// Players fixed by the operator, by round and board; they win over
    /// the file.
    overrides: BTreeMap<(u32, u32), Pairing>,
    /// The pairings of rounds loaded before the current one, by round: a
    /// game of round 2 keeps round 2's players once round 3 is loaded.
    earlier: BTreeMap<u32, Pairings>,
}

/// The live round (shared by every board task and the writer task).
#[derive(Debug)]
pub struct Round {
    state: RwLock<State>,
    pairings_path: Option<PathBuf>,
    folder: Option<Folder>,
    /// The game of each (round, board) as the public has seen it (with a
    /// broadcast delay, the delayed game): the PGN folder's ledger.
    games: Mutex<Ledger>,
    /// The live game of each (round, board): the operator's desk's ledger
    /// (its results and round PGN never wait for the delay).
    live: Mutex<Ledger>,
    /// Where closed games are kept for a restart (the recorder folder's
    /// `ledger.jsonl`), once [`Round::keep_ledger_in`] named it.
    journal: Mutex<Option<Journal>>,
    /// Rounds to write, with the boards whose game file changed.
    dirty: Mutex<BTreeMap<u32, BTreeSet<u32>>>,
    notify: Notify,
    /// The last folder write failed (said once).
    failing: std::sync::atomic::AtomicBool,
    /// The event as configured (a TRF file fills what it leaves unknown).
    configured: EventInfo,
    /// `[event] round` as configured: the round a TRF file is read for.
    asked_round: Option<u32>,
    /// The results TRF last written.
    trf_written: Mutex<Option<Vec<u8>>>,
    /// The result conflicts warned about since the last reload.
    warned: Mutex<BTreeSet<(u32, String, String)>>,
    /// Counts the changes of the public games (and their tags): the
    /// lichess push ([`Round::public_changes`]) watches it.
    public: tokio::sync::watch::Sender<u64>,
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
        Round::new_asking(event, fallback, pairings_path, None, pgn_dir)
    }

    /// [`Round::new`], reading round `asked_round` (`[event] round` as
    /// configured) of a TRF pairings file when the file pairs it, else its
    /// last paired round.
    pub fn new_asking(
        event: EventInfo,
        fallback: Pairings,
        pairings_path: Option<PathBuf>,
        asked_round: Option<u32>,
        pgn_dir: Option<PathBuf>,
    ) -> Result<Arc<Round>, PairingsError> {
        let round = Round::starting(event, fallback, pairings_path, asked_round, pgn_dir);
        round.reload()?;
        Ok(round)
    }

    /// [`Round::new_asking`] without reading the pairings file yet: the
    /// daemon reads it with [`Round::reload_from`], and starts without it
    /// (or with its last good copy) when it does not read.
    pub fn starting(
        event: EventInfo,
        fallback: Pairings,
        pairings_path: Option<PathBuf>,
        asked_round: Option<u32>,
        pgn_dir: Option<PathBuf>,
    ) -> Arc<Round> {
        Arc::new(Round {
            state: RwLock::new(State {
                event: event.clone(),
                pairings: fallback,
                trf: None,
                overrides: BTreeMap::new(),
                earlier: BTreeMap::new(),
            }),
            pairings_path,
            folder: pgn_dir.map(Folder::new),
            games: Mutex::new(Ledger::default()),
            live: Mutex::new(Ledger::default()),
            journal: Mutex::new(None),
            dirty: Mutex::new(BTreeMap::new()),
            notify: Notify::new(),
            failing: std::sync::atomic::AtomicBool::new(false),
            configured: event,
            asked_round,
            trf_written: Mutex::new(None),
            warned: Mutex::new(BTreeSet::new()),
            public: tokio::sync::watch::Sender::new(0),
        })
    }

    /// The pairings file, when there is one.
    pub fn pairings_path(&self) -> Option<&std::path::Path> {
        self.pairings_path.as_deref()
    }

    /// Reads the pairings file again (on SIGHUP). A file naming a round
    /// moves the event to that round: games started from now on belong to
    /// it. On error the old pairings stay.
    pub fn reload(&self) -> Result<(), PairingsError> {
        match &self.pairings_path {
            Some(path) => self.reload_from(path).map(drop),
            None => Ok(()),
        }
    }

    /// Reads the pairings from `source` (the pairings file, or its last
    /// good copy) as [`Round::reload`] does; returns the bytes read.
    pub fn reload_from(&self, source: &std::path::Path) -> Result<Vec<u8>, PairingsError> {
        let bytes = read_pairings_bytes(source)?;
        self.load(&bytes, source, self.asked_round)?;
        Ok(bytes)
    }

    /// Takes up the pairings in `bytes` (a file named `path`; a TRF file
    /// read for round `asked`, else its last paired round) as
    /// [`Round::reload`] does: the operator's desk loads the file it was
    /// given so when it starts a round.
    pub fn load(
        &self,
        bytes: &[u8],
        path: &std::path::Path,
        asked: Option<u32>,
    ) -> Result<(), PairingsError> {
        let file = parse_pairings(bytes, path, asked)?;
        if let Some(why) = &file.not_paired {
            warn!(path = %path.display(), "{why}");
        }
        let pairings = file.pairings;
        let unnamed = self.begun_unpaired(pairings.round.unwrap_or_else(|| self.current()));
        let mut state = self.state.write().expect("round state lock");
        if let Some(trf) = &file.trf {
            state.event = self.configured.clone();
            fill_event(&mut state.event, trf, pairings.round);
            if let (Some(asked), Some(r)) = (asked, pairings.round)
                && asked != r
            {
                warn!(path = %path.display(), "[event] round = {asked}: the TRF file does not pair it; reading its last paired round, {r}");
            }
        }
        if let Some(r) = pairings.round {
            state.event.round = r;
        }
        info!(
            round = state.event.round,
            boards = pairings.pairings.len(),
            path = %path.display(),
            "pairings loaded"
        );
        // The round loaded before keeps its pairings (a file read again
        // for the same round replaces them, and the operator's fixes).
        let before = std::mem::replace(&mut state.pairings, pairings);
        if let Some(r) = before.round
            && state.pairings.round != Some(r)
        {
            state.earlier.insert(r, before);
        }
        state.trf = file.trf;
        let round = state.event.round;
        state.overrides.retain(|(r, _), _| *r != round);
        // A file loaded during a game names no one on it: its players sat
        // down before the file said who plays there.
        for board in unnamed {
            let nobody = Player {
                name: "?".into(),
                ..Player::default()
            };
            let pairing = Pairing {
                board,
                white: nobody.clone(),
                black: nobody,
            };
            state.overrides.insert((round, board), pairing);
        }
        drop(state);
        if self.trf_round().is_some() {
            // The file's results against the boards' games, said again.
            self.warned.lock().expect("round warned lock").clear();
            let results = self
                .games_of(round)
                .into_iter()
                .map(|(b, g)| (b, g.result_token().to_string()))
                .collect();
            self.warn_conflicts(round, &results);
            self.mark(round, None);
        }
        Ok(())
    }

    /// The boards of `round` whose game is under way (a move played, no
    /// result) with no pairing naming its players (none, or the nobody a
    /// file loaded during the game left there).
    fn begun_unpaired(&self, round: u32) -> Vec<u32> {
        let nobody = |p: Pairing| p.white.name == "?" && p.black.name == "?";
        self.live_of(round)
            .into_iter()
            .filter(|(b, g)| {
                g.result.is_none()
                    && !g.sans.is_empty()
                    && self.pairing_in(round, *b).is_none_or(nobody)
            })
            .map(|(b, _)| b)
            .collect()
    }

    /// The TRF file and its round, when the pairings come from one.
    fn trf_round(&self) -> Option<(Arc<Trf>, u32)> {
        let state = self.state.read().expect("round state lock");
        Some((Arc::clone(state.trf.as_ref()?), state.pairings.round?))
    }

    /// The TRF file the pairings come from, when they do.
    pub fn trf(&self) -> Option<Arc<Trf>> {
        self.state.read().expect("round state lock").trf.clone()
    }

    /// The live games of `round` as one PGN text, in board order.
    pub fn round_pgn(&self, round: u32) -> String {
        self.live_of(round)
            .iter()
            .map(|(b, g)| super::pgn::render(g, &self.tags(round, *b)))
            .collect()
    }

    /// The games of `round` as the public has seen them (with a broadcast
    /// delay, the delayed games) as one PGN text, in board order: what
    /// the lichess push sends.
    pub fn public_pgn(&self, round: u32) -> String {
        self.games_of(round)
            .iter()
            .map(|(b, g)| super::pgn::render(g, &self.tags(round, *b)))
            .collect()
    }

    /// Tells of every change of the public games (a game filed, its
    /// players or tags changed): the value counts them; a receiver sees
    /// the changes since it last looked.
    pub fn public_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.public.subscribe()
    }

    /// The games of `round` as the public has seen them, by board, in
    /// board order: a snapshot taken under the lock (the records are
    /// shared, not copied).
    fn games_of(&self, round: u32) -> Vec<(u32, Arc<GameRecord>)> {
        self.games.lock().expect("round games lock").of_round(round)
    }

    /// The live games of `round`, by board, in board order.
    pub fn live_of(&self, round: u32) -> Vec<(u32, Arc<GameRecord>)> {
        self.live.lock().expect("round live lock").of_round(round)
    }

    /// How each result of `round`'s live games came, by board.
    pub fn sources(&self, round: u32) -> BTreeMap<u32, Source> {
        self.live_of(round)
            .into_iter()
            .filter_map(|(b, g)| Some((b, Source::of(&g)?)))
            .collect()
    }

    /// The boards of `round` whose players sit the other way round from
    /// the pairing file's (an operator's "swap players"): the game is
    /// played with the colours reversed (Law 7.3 lets it go on so).
    pub fn swapped(&self, round: u32) -> BTreeSet<u32> {
        let state = self.state.read().expect("round state lock");
        let Some(trf) = &state.trf else {
            return BTreeSet::new();
        };
        let paired = trf.pairings(round);
        let same = |a: &Player, b: &Player| a.name == b.name && a.fide_id == b.fide_id;
        let live = self.ledger(View::Live);
        paired
            .pairings
            .iter()
            .filter(|p| {
                let played = live
                    .closed_players(round, p.board)
                    .or_else(|| state.overrides.get(&(round, p.board)));
                played.is_some_and(|x| same(&p.white, &x.black) && same(&p.black, &x.white))
            })
            .map(|p| p.board)
            .collect()
    }

    /// Keeps closed games in `dir` (the recorder folder's `ledger.jsonl`),
    /// and takes up the ones kept there by an earlier run.
    pub fn keep_ledger_in(&self, dir: &std::path::Path) {
        let mut live = self.live.lock().expect("round live lock");
        let mut games = self.games.lock().expect("round games lock");
        let journal = Journal::open(dir, &mut live, &mut games);
        let rounds: BTreeSet<u32> = games.of_rounds().into_iter().collect();
        drop((live, games));
        *self.journal.lock().expect("round journal lock") = Some(journal);
        for r in rounds {
            self.mark(r, None);
        }
    }

    /// The results of `round`'s live games, board by board (`*`
    /// included).
    pub fn results(&self, round: u32) -> BTreeMap<u32, String> {
        self.live_of(round)
            .into_iter()
            .map(|(b, g)| (b, g.result_token().to_string()))
            .collect()
    }

    /// Warns once about each board of the TRF round whose game says
    /// another result than the file; returns the file with the results
    /// filled in.
    fn warn_conflicts(&self, round: u32, results: &BTreeMap<u32, String>) -> Option<Vec<u8>> {
        let (trf, trf_round) = self.trf_round()?;
        if trf_round != round {
            return None;
        }
        let filled = trf.fill_played(round, results, &self.swapped(round));
        let mut warned = self.warned.lock().expect("round warned lock");
        for c in filled.conflicts {
            let Conflict {
                board, file, game, ..
            } = &c;
            if warned.insert((*board, file.clone(), game.clone())) {
                warn!(round, "result differs: {c}");
            }
        }
        Some(filled.bytes)
    }

    /// The round being played now.
    pub fn current(&self) -> u32 {
        self.state.read().expect("round state lock").event.round
    }

    /// The pairing of a board in the round being played, operator
    /// corrections first.
    pub fn pairing(&self, board: u32) -> Option<Pairing> {
        self.pairing_in(self.current(), board)
    }

    /// The pairing of board `board` in round `round`, operator corrections
    /// first: the current pairings, else the round's from the TRF file,
    /// else those loaded for it before. Pairings that name no round (the
    /// configuration's boards) stand for every round.
    pub fn pairing_in(&self, round: u32, board: u32) -> Option<Pairing> {
        let state = self.state.read().expect("round state lock");
        if let Some(p) = state.overrides.get(&(round, board)) {
            return Some(p.clone());
        }
        if state.pairings.round.is_none_or(|r| r == round) {
            return state.pairings.board(board).cloned();
        }
        if let Some(trf) = &state.trf
            && trf.paired_rounds().contains(&round)
        {
            return trf.pairings(round).board(board).cloned();
        }
        state.earlier.get(&round)?.board(board).cloned()
    }

    /// Whether the live ledger holds, under `seat`, a closed game other
    /// than `key` (so `key` is not the pairing's game).
    pub fn closed_by_other(&self, seat: (u32, u32), key: &GameKey) -> bool {
        let live = self.ledger(View::Live);
        live.get(seat.0, seat.1)
            .is_some_and(|g| crate::sink::ledger::closed(g) && !live.closed_by(seat, key))
    }

    /// The players of board `board`'s game in round `round`: those who
    /// played its closed game, else its pairing's.
    pub fn players_in(&self, round: u32, board: u32) -> Option<Pairing> {
        let played = self
            .ledger(View::Live)
            .closed_players(round, board)
            .cloned();
        played.or_else(|| self.pairing_in(round, board))
    }

    /// The PGN tags of board `board`'s game in round `round`.
    pub fn tags(&self, round: u32, board: u32) -> Tags {
        let pairing = self.players_in(round, board);
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
        let pairing = self.put_players(round, board, white, black);
        // The game filed there is played by them (a closed game too: this
        // is a correction of that pairing).
        for view in [View::Live, View::Public] {
            let mut ledger = self.ledger(view);
            if let Some((key, record)) = ledger.set_players((round, board), pairing.clone())
                && let Some(j) = self.journal.lock().expect("round journal lock").as_mut()
            {
                j.note(
                    view,
                    (round, board),
                    &key,
                    Some(&record),
                    (&record, Some(&pairing)),
                );
            }
        }
        self.mark(round, Some(board));
    }

    /// Players fixed earlier, taken up again (a board's resume replays the
    /// corrections in its captures): the pairing's players from now on,
    /// but a closed game keeps those who played it, as the ledger kept
    /// them.
    pub fn restore_players_in(&self, round: u32, board: u32, white: Player, black: Player) {
        self.put_players(round, board, white, black);
        self.mark(round, Some(board));
    }

    /// Fixes the players of board `board` in round `round` over the file's.
    fn put_players(&self, round: u32, board: u32, white: Player, black: Player) -> Pairing {
        let pairing = Pairing {
            board,
            white,
            black,
        };
        let mut state = self.state.write().expect("round state lock");
        state.overrides.insert((round, board), pairing.clone());
        pairing
    }

    /// A board's game as the public has seen it changed: filed for the
    /// folder (game `key` under board `board` of round `round`), unless
    /// another game closed that pairing. Returns whether it was filed.
    pub fn update(&self, round: u32, board: u32, key: &GameKey, record: &GameRecord) -> bool {
        let kept = self.file(View::Public, (round, board), key, Arc::new(record.clone()));
        if kept {
            self.mark(round, Some(board));
        }
        kept
    }

    /// A board's game changed, and the public sees it live (no delay):
    /// one copy serves the folder and the desk.
    pub fn update_both(&self, round: u32, board: u32, key: &GameKey, record: &GameRecord) -> bool {
        let record = Arc::new(record.clone());
        let live = self.file(View::Live, (round, board), key, Arc::clone(&record));
        if self.file(View::Public, (round, board), key, record) {
            self.mark(round, Some(board));
        }
        live
    }

    /// A board's live game changed: kept without a folder too (the
    /// operator's desk hands the round's games and results out).
    pub fn update_live(&self, round: u32, board: u32, key: &GameKey, record: &GameRecord) -> bool {
        self.file(View::Live, (round, board), key, Arc::new(record.clone()))
    }

    /// Files `record` in `view`'s ledger, noting a closed game in the
    /// journal; a game refused (another closed the pairing) is said once
    /// in the log.
    fn file(&self, view: View, seat: (u32, u32), key: &GameKey, record: Arc<GameRecord>) -> bool {
        let pairing = self.pairing_in(seat.0, seat.1);
        let mut ledger = self.ledger(view);
        let before = ledger.get(seat.0, seat.1).cloned();
        // A closed game keeps the players it was played by (a file read
        // again for the round does not undo a swap); an operator's
        // correction of them sets them (`set_players_in`).
        let players = match ledger.players(seat.0, seat.1) {
            Some(p) if ledger.closed_by(seat, key) => Some(p.clone()),
            _ => pairing,
        };
        match ledger.file(seat, key, Arc::clone(&record), players.clone()) {
            Filed::Kept => {
                if let Some(j) = self.journal.lock().expect("round journal lock").as_mut() {
                    j.note(
                        view,
                        seat,
                        key,
                        before.as_deref(),
                        (&record, players.as_ref()),
                    );
                }
                true
            }
            Filed::Same => true,
            Filed::Refused { holder, result } => {
                if view == View::Live && record.sans.is_empty() {
                    tracing::debug!(
                        round = seat.0,
                        board = seat.1,
                        game_of = %key.board,
                        holder = %holder.board,
                        %result,
                        "a new game is not filed under a pairing whose game has ended"
                    );
                }
                false
            }
        }
    }

    /// `view`'s ledger, locked.
    fn ledger(&self, view: View) -> std::sync::MutexGuard<'_, Ledger> {
        match view {
            View::Live => &self.live,
            View::Public => &self.games,
        }
        .lock()
        .expect("round ledger lock")
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
        self.public.send_modify(|n| *n = n.wrapping_add(1));
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
            let games = self.games_of(round);
            let pairings: BTreeMap<u32, Option<Pairing>> = games
                .iter()
                .map(|(b, _)| (*b, self.pairing_in(round, *b)))
                .collect();
            let list: Vec<BoardGame<'_>> = games
                .iter()
                .map(|(b, record)| BoardGame {
                    board: *b,
                    pairing: pairings.get(b).and_then(Option::as_ref),
                    record,
                })
                .collect();
            let event = self.state.read().expect("round state lock").event.clone();
            let mut written =
                folder.write_round_changed(&event, round, last.max(round), &list, &|b| {
                    changed.contains(&b)
                });
            if written.is_ok() {
                written = self.write_results(folder, round, &games);
            }
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

    /// Writes `round-<r>/results.trf` when the pairings come from a TRF
    /// file of this round and its results changed.
    fn write_results(
        &self,
        folder: &Folder,
        round: u32,
        games: &[(u32, Arc<GameRecord>)],
    ) -> std::io::Result<()> {
        let results = games
            .iter()
            .map(|(b, g)| (*b, g.result_token().to_string()))
            .collect();
        let Some(bytes) = self.warn_conflicts(round, &results) else {
            return Ok(());
        };
        let mut last = self.trf_written.lock().expect("round trf lock");
        if last.as_deref() != Some(&bytes[..]) {
            folder.write_trf_results(round, &bytes)?;
            *last = Some(bytes);
        }
        Ok(())
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

/// Fills what the configured event leaves unknown from a TRF file's
/// tournament lines: the name (`012`), the site (`022`, the city), and the
/// date (`132`, the round's date, else `042`, the start).
fn fill_event(event: &mut EventInfo, trf: &Trf, round: Option<u32>) {
    let t = &trf.tournament;
    if event.name == "?"
        && let Some(name) = &t.name
    {
        event.name = name.clone();
    }
    if event.site == "?"
        && let Some(city) = &t.city
    {
        event.site = city.clone();
    }
    if event.date == "????.??.??"
        && let Some(date) = t.date(round)
    {
        event.date = date;
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

    /// The one sensor board's game the tests file.
    fn k() -> GameKey {
        GameKey {
            board: "t".into(),
            started_ms: 0,
        }
    }

    fn round_in(dir: &std::path::Path) -> Arc<Round> {
        let event = EventInfo {
            round: 1,
            ..EventInfo::default()
        };
        Round::new(event, Pairings::default(), None, Some(dir.to_path_buf())).unwrap()
    }

    #[test]
    fn a_trf_round_writes_its_results_back_and_warns_of_a_differing_file() {
        let dir = tempfile::tempdir().unwrap();
        let example: &[u8] = include_bytes!("../../tests/data/trf/fide-example.trf");
        let path = dir.path().join("round.trf");
        std::fs::write(&path, example).unwrap();
        let pgn = dir.path().join("pgn");
        let asked = |r| {
            Round::new_asking(
                EventInfo::default(),
                Pairings::default(),
                Some(path.clone()),
                r,
                Some(pgn.clone()),
            )
            .unwrap()
        };
        assert_eq!(asked(Some(2)).current(), 2);
        let round = asked(None);
        assert_eq!(round.current(), 4);
        assert_eq!(round.pairing(1).unwrap().white.name, "Okafor, Chidi");
        // What the configured event leaves unknown comes from the file.
        let tags = round.tags(4, 1);
        assert_eq!(
            (tags.site.as_str(), tags.date.as_str()),
            ("Torino", "2024.03.04")
        );
        assert!(tags.event.starts_with("Example Open"));

        let mut game = record(3);
        game.result = Some("1-0".into());
        round.update(4, 1, &k(), &game);
        assert!(round.flush());
        let written = std::fs::read(pgn.join("round-4/results.trf")).unwrap();
        let back = crate::tournament::trf::parse(&written).unwrap();
        assert_eq!(back.boards(4)[0].file_result().as_deref(), Some("1-0"));
        assert_eq!(back.boards(4)[1].file_result(), None);

        // The pairing program's file comes back with 0-1 on board 1: a
        // reload says so once.
        let trf = crate::tournament::trf::parse(example).unwrap();
        let mut other = BTreeMap::new();
        other.insert(1, "0-1".to_string());
        std::fs::write(&path, trf.fill_results(4, &other).bytes).unwrap();
        round.reload().unwrap();
        let warned = round.warned.lock().unwrap().clone();
        assert_eq!(
            warned.into_iter().collect::<Vec<_>>(),
            [(1, "0-1".to_string(), "1-0".to_string())]
        );
        // The results file follows the board.
        assert!(round.flush());
        let written = std::fs::read(pgn.join("round-4/results.trf")).unwrap();
        let back = crate::tournament::trf::parse(&written).unwrap();
        assert_eq!(back.boards(4)[0].file_result().as_deref(), Some("1-0"));
    }

    #[test]
    fn a_game_of_an_earlier_round_keeps_that_rounds_players() {
        let example: &[u8] = include_bytes!("../../tests/data/trf/fide-example.trf");
        let round = Round::new(EventInfo::default(), Pairings::default(), None, None).unwrap();
        let path = std::path::Path::new("pairings.trf");
        round.load(example, path, Some(3)).unwrap();
        let trf = crate::tournament::trf::parse(example).unwrap();
        let in_round = |r: u32| trf.pairings(r).board(1).unwrap().white.name.clone();
        assert_ne!(in_round(3), in_round(4), "the example pairs board 1 anew");
        round.set_players_in(
            3,
            2,
            Player {
                name: "Fixed, In Three".into(),
                ..Player::default()
            },
            Player::default(),
        );
        round.update_live(3, 1, &k(), &record(2));
        round.load(example, path, Some(4)).unwrap();
        assert_eq!(round.current(), 4);
        // Round 3's game keeps round 3's players, and its operator's fix.
        assert!(
            round
                .round_pgn(3)
                .contains(&format!("[White \"{}\"]", in_round(3)))
        );
        assert_eq!(round.tags(3, 1).white, in_round(3));
        assert_eq!(round.tags(3, 2).white, "Fixed, In Three");
        assert_eq!(round.pairing(1).unwrap().white.name, in_round(4));
        assert_ne!(round.tags(4, 2).white, "Fixed, In Three");
        // Without a TRF file, the pairings loaded for a round are kept.
        let toml = |r: u32, name: &str| {
            format!(
                "round = {r}\n[[pairing]]\nboard = 1\nwhite = {{ name = \"{name}\" }}\nblack = {{ name = \"B\" }}\n"
            )
        };
        let round = Round::new(EventInfo::default(), Pairings::default(), None, None).unwrap();
        let path = std::path::Path::new("pairings.toml");
        round
            .load(toml(1, "First, Round").as_bytes(), path, None)
            .unwrap();
        round
            .load(toml(2, "Second, Round").as_bytes(), path, None)
            .unwrap();
        assert_eq!(round.tags(1, 1).white, "First, Round");
        assert_eq!(round.tags(2, 1).white, "Second, Round");
    }

    #[test]
    fn a_finished_game_is_kept_when_its_board_is_set_up_again_and_after_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let recorder = tempfile::tempdir().unwrap();
        let round = round_in(dir.path());
        round.keep_ledger_in(recorder.path());
        let key = |started_ms| GameKey {
            board: "b4".into(),
            started_ms,
        };
        let mut done = record(12);
        done.started_ms = 100;
        assert!(round.update_both(3, 4, &key(100), &done));
        done.result = Some("1/2-1/2".into());
        done.reason = Some("kings in the centre".into());
        assert!(round.update_both(3, 4, &key(100), &done));
        // The pieces set up again 1.6 s later: a new game, not filed.
        let mut next = record(0);
        next.started_ms = 1_700;
        assert!(!round.update_both(3, 4, &key(1_700), &next));
        assert!(!round.update(3, 4, &key(1_700), &next));
        assert!(round.flush());
        let file = std::fs::read_to_string(dir.path().join("round-3/game-4.pgn")).unwrap();
        assert!(file.contains("[Result \"1/2-1/2\"]"), "{file}");
        assert!(file.contains("6. Nf3 Nf3"), "{file}");
        let index = std::fs::read_to_string(dir.path().join("round-3/index.json")).unwrap();
        assert!(!index.contains("\"*\""), "{index}");
        assert_eq!(round.results(3)[&4], "1/2-1/2");
        assert_eq!(round.sources(3)[&4], Source::Kings);
        // A restart over the same recorder folder finds the result, and the
        // new game still does not replace it.
        let again = round_in(dir.path());
        again.keep_ledger_in(recorder.path());
        assert_eq!(again.results(3)[&4], "1/2-1/2");
        assert!(!again.update_live(3, 4, &key(1_700), &next));
        assert!(again.round_pgn(3).contains("1/2-1/2"));
        // The game itself corrected by the operator still changes it.
        done.result = Some("1-0".into());
        done.reason = Some(crate::sink::ledger::OPERATOR_RESULT.into());
        assert!(again.update_live(3, 4, &key(100), &done));
        assert_eq!(again.sources(3)[&4], Source::Operator);
    }

    #[test]
    fn a_file_loaded_during_a_game_names_no_one_on_it() {
        let example: &[u8] = include_bytes!("../../tests/data/trf/fide-example.trf");
        let round = Round::new(EventInfo::default(), Pairings::default(), None, None).unwrap();
        // Board 1's players began before any file; board 2 stands ready.
        round.update_live(4, 1, &k(), &record(6));
        let ready = GameKey {
            board: "u".into(),
            started_ms: 0,
        };
        round.update_live(4, 2, &ready, &record(0));
        round
            .load(example, std::path::Path::new("p.trf"), None)
            .unwrap();
        assert_eq!(round.current(), 4);
        assert_eq!(round.tags(4, 1).white, "?");
        assert_ne!(round.tags(4, 2).white, "?");
        // Read again, the file still names no one on that game, and the
        // players of the game it named.
        round
            .load(example, std::path::Path::new("p.trf"), None)
            .unwrap();
        assert_eq!(round.tags(4, 1).white, "?");
        assert_ne!(round.tags(4, 2).white, "?");
    }

    #[test]
    fn the_desks_results_are_live_the_folders_public() {
        let round = Round::new(EventInfo::default(), Pairings::default(), None, None).unwrap();
        let mut live = record(4);
        live.result = Some("1-0".into());
        round.update(1, 1, &k(), &record(2));
        round.update_live(1, 1, &k(), &live);
        assert_eq!(round.results(1).get(&1).map(String::as_str), Some("1-0"));
        assert_eq!(round.games_of(1)[0].1.sans.len(), 2);
        assert!(round.round_pgn(1).contains("1-0"));
        // Without a delay, one copy serves both.
        round.update_both(1, 2, &k(), &record(3));
        assert_eq!(round.games_of(1).len(), 2);
        assert_eq!(round.results(1).len(), 2);
    }

    // Inodes tell a rewrite: a Unix test.
    #[cfg(unix)]
    #[test]
    fn only_the_games_that_changed_are_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let round = round_in(dir.path());
        for b in 1..=5 {
            round.update(1, b, &k(), &record(b as usize));
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
        round.update(1, 3, &k(), &record(9));
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
    fn a_flush_renders_only_the_games_that_changed() {
        use crate::sink::folder::RENDERS;
        let dir = tempfile::tempdir().unwrap();
        let round = round_in(dir.path());
        for b in 1..=100 {
            round.update(1, b, &k(), &record(4));
        }
        let renders = || RENDERS.with(|n| n.get());
        let start = renders();
        assert!(round.flush());
        assert_eq!(renders() - start, 100);
        round.update(1, 7, &k(), &record(9));
        assert!(round.flush());
        // One game changed: one game rendered, and games.pgn still holds
        // every game with board 7's new moves.
        assert_eq!(renders() - start, 101);
        let all = std::fs::read_to_string(dir.path().join("round-1/games.pgn")).unwrap();
        assert_eq!(all.matches("[Event ").count(), 100);
        assert_eq!(all.matches("5. Nf3").count(), 1);
    }

    #[test]
    fn boards_hand_in_their_games_while_the_folder_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let round = round_in(dir.path());
        for b in 1..=150 {
            round.update(1, b, &k(), &record(80));
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
        let mut updates = 0;
        while !writer.is_finished() {
            let at = Instant::now();
            round.update(1, 1, &k(), &record(81));
            slowest = slowest.max(at.elapsed());
            updates += 1;
        }
        let took = writer.join().unwrap();
        // A board that waited for the whole write would hand in its game
        // once or twice while it runs and wait about as long as it; one
        // that never waits for it hands in thousands of times. (Not a
        // tighter bound on the slowest: on a loaded machine one update can
        // lose the processor for a time slice or two.)
        assert!(
            updates >= 20 && slowest * 2 < took.max(Duration::from_millis(25)),
            "a board waited {slowest:?} ({updates} updates) for a folder write of {took:?}"
        );
    }
}
