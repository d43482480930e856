//! The desk as the daemon runs it: the operator's set-up under a lock,
//! kept in its [`Store`], and the round it starts (the pairing file handed
//! to [`Round`]).
//!
//! Durable or refused: every change (a pairing file loaded, a round
//! chosen, a board assigned, a result typed, a round started, the first
//! password) is made on a copy of the set-up, kept by the store under the
//! desk's lock (its files and its line of the desk's journal, all or
//! nothing: [`Store::keep`]), and only then put in force. A change the
//! store cannot keep (a full disk) is answered as a [`StoreError`] and the
//! desk stays as it was: what it shows is what a restart finds.
//!
//! Design: the journal line is part of the change. It is appended after
//! the files are written (to temporary files) and before they replace the
//! old ones, so a journal line that cannot be appended refuses the change
//! with nothing changed. A login and a board's correction are no change of
//! the desk: their lines ([`Desk::record`]) are written when the disk
//! allows, and a failure is only warned about (the correction itself is
//! recorded in the board's capture).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tracing::{info, warn};

use super::store::{Files, Store, StoreError};
use super::{DeskError, DeskState, PasswordHash, Plan, RoundGames};
use crate::control::{OperatorCommand, Router};
use crate::pipeline::correct::IN_PROGRESS;
use crate::sink::round::Round;
use crate::tournament::Pairing;
use crate::tournament::trf::Trf;

/// What the operator set up, and the pairing file it came with.
#[derive(Debug)]
struct Inner {
    state: DeskState,
    /// The pairing file: parsed, and its bytes as loaded.
    trf: Option<(Arc<Trf>, Vec<u8>)>,
    /// The password chosen on the desk (the configured one wins).
    password: Option<PasswordHash>,
}

/// Who makes a desk action, and its name in the desk's journal
/// (`actions.jsonl`).
#[derive(Clone, Copy, Debug)]
pub struct Act<'a> {
    /// Who made it (`desk: <address>`).
    pub by: &'a str,
    /// The action (`choose_round`, `assign`, ...).
    pub action: &'a str,
}

impl Act<'_> {
    /// The journal line of this action, done now (`detail` says how).
    fn line(&self, detail: &str) -> serde_json::Value {
        serde_json::json!({
            "t": crate::wall::unix_ms(),
            "by": self.by,
            "action": self.action,
            "detail": detail,
        })
    }
}

/// The desk of one daemon (shared by the web routes).
#[derive(Debug)]
pub struct Desk {
    inner: Mutex<Inner>,
    store: Store,
    round: Arc<Round>,
    /// `[event] pairings`, when configured.
    configured: Option<PathBuf>,
    /// `[web] desk_password`, when configured: it wins over one chosen here.
    configured_password: Option<String>,
}

/// Why a pairing file cannot be taken up.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No file is configured.
    #[error("the configuration names no pairing file ([event] pairings)")]
    NoneConfigured,
    /// The file does not read.
    #[error("{0}")]
    Unreadable(String),
    /// The file is no TRF file.
    #[error("{0}: not a FIDE TRF file (a line starting 012 or 001 is expected)")]
    NotTrf(String),
    /// The file (or the desk's state with it) could not be kept.
    #[error(transparent)]
    NotKept(#[from] StoreError),
}

/// Why the desk did not make a change.
#[derive(Debug, thiserror::Error)]
pub enum ChangeError<E: std::error::Error + 'static> {
    /// The desk refuses it (no pairing file, no such board, ...).
    #[error(transparent)]
    Refused(E),
    /// It could not be kept (a full disk): the desk is as it was.
    #[error(transparent)]
    NotKept(#[from] StoreError),
}

/// A round started: its number, and each sensor board with its pairing.
pub type Starts = (u32, Vec<(String, Pairing)>);

/// How a round's start went on its boards ([`Desk::start_round`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundStart {
    /// The round.
    pub round: u32,
    /// The boards told to start it.
    pub boards: usize,
    /// The boards that did not start it, each with why (`board 3: ...`).
    pub failed: Vec<String>,
    /// The boards whose game was under way: it goes on, and the round's
    /// game starts on them when the start position stands after it
    /// (`3 (the board's words)`).
    pub kept: Vec<String>,
}

/// Why the first password is not chosen.
#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    /// A password is set already (configured, or chosen first).
    #[error("the desk password is set already")]
    Set,
    /// The password is too weak (the reason).
    #[error("{0}")]
    Weak(String),
    /// It could not be kept (a full disk): the desk has no password yet.
    #[error(transparent)]
    NotKept(#[from] StoreError),
}

impl Desk {
    /// The desk over `round`, taking up what `store` kept: the round last started is loaded into
    /// `round` again, unless a configured pairing file (`configured`) is
    /// in force (it wins).
    pub fn new(
        store: Store,
        round: Arc<Round>,
        configured: Option<PathBuf>,
        configured_password: Option<String>,
    ) -> Desk {
        let stored = store.read();
        let trf = stored
            .trf
            .and_then(|bytes| match parse(&bytes, "pairings.trf") {
                Ok(t) => Some((Arc::new(t), bytes)),
                Err(e) => {
                    warn!(error = %e, "the desk's pairing file does not read any more");
                    None
                }
            });
        let desk = Desk {
            inner: Mutex::new(Inner {
                state: stored.state,
                trf,
                password: stored.password,
            }),
            store,
            round,
            configured,
            configured_password,
        };
        let inner = desk.lock();
        if let (Some(started), Some((_, bytes)), None) =
            (inner.state.started, &inner.trf, &desk.configured)
        {
            match desk
                .round
                .load(bytes, Path::new("pairings.trf"), Some(started))
            {
                Ok(()) => info!(round = started, "the desk's round taken up"),
                Err(e) => warn!(error = %e, "the desk's round cannot be taken up"),
            }
        }
        drop(inner);
        desk
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a desk password is set (configured or chosen).
    pub fn has_password(&self) -> bool {
        self.configured_password.is_some() || self.lock().password.is_some()
    }

    /// Whether `password` opens the desk (spaces around it do not count,
    /// as when it was chosen).
    pub fn verify(&self, password: &str) -> bool {
        let password = password.trim();
        match &self.configured_password {
            Some(p) => {
                let p = p.trim();
                p.len() == password.len()
                    && p.bytes()
                        .zip(password.bytes())
                        .fold(0, |d, (a, b)| d | (a ^ b))
                        == 0
            }
            None => {
                // Hashed outside the lock: the desk is not held meanwhile.
                let hash = self.lock().password.clone();
                hash.is_some_and(|h| h.verify(password))
            }
        }
    }

    /// Chooses the desk password at first run (spaces around it do not
    /// count); refused once one is set, also when two are chosen at once.
    /// Kept before it is in force (journal line `choose_password` by `by`).
    pub fn choose_password(&self, by: &str, password: &str) -> Result<(), PasswordError> {
        if self.has_password() {
            return Err(PasswordError::Set);
        }
        let hash = PasswordHash::new(password.trim()).map_err(PasswordError::Weak)?;
        let mut inner = self.lock();
        if self.configured_password.is_some() || inner.password.is_some() {
            return Err(PasswordError::Set);
        }
        let act = Act {
            by,
            action: "choose_password",
        };
        let files = Files {
            password: Some(&hash),
            ..Files::default()
        };
        self.keep(files, act, "first run")?;
        inner.password = Some(hash);
        Ok(())
    }

    /// Takes up a pairing file (`name`: its name, for the operator),
    /// loaded by `by` (journal line `load_pairings`).
    pub fn load_trf(&self, by: &str, bytes: &[u8], name: &str) -> Result<(), LoadError> {
        self.load(by, bytes, name, name)
    }

    /// [`Desk::load_trf`], with `detail` for the journal.
    fn load(&self, by: &str, bytes: &[u8], name: &str, detail: &str) -> Result<(), LoadError> {
        let trf = parse(bytes, name)?;
        let mut inner = self.lock();
        let mut state = inner.state.clone();
        let rounds = trf.paired_rounds();
        if state.round.is_none_or(|r| !rounds.contains(&r)) {
            state.round = trf.round_to_read(None);
        }
        state.trf_name = Some(name.to_string());
        let files = Files {
            state: Some(&state),
            trf: Some(bytes),
            password: None,
        };
        let act = Act {
            by,
            action: "load_pairings",
        };
        self.keep(files, act, detail)?;
        inner.state = state;
        inner.trf = Some((Arc::new(trf), bytes.to_vec()));
        info!(file = name, rounds = ?rounds, "desk: pairing file loaded");
        Ok(())
    }

    /// Takes up the configured pairing file, for `by`.
    pub fn load_configured(&self, by: &str) -> Result<(), LoadError> {
        let path = self.configured.as_ref().ok_or(LoadError::NoneConfigured)?;
        let bytes = crate::tournament::read_pairings_bytes(path)
            .map_err(|e| LoadError::Unreadable(e.to_string()))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.load(by, &bytes, &name, "the configured file")
    }

    /// Applies `act`, a change of the state: `f` makes it on a copy and
    /// says what it did (the journal line's detail), or why not; the copy
    /// is put in force once it is kept. Returns the detail.
    pub fn change<E: std::error::Error + 'static>(
        &self,
        act: Act<'_>,
        f: impl FnOnce(&mut DeskState, Option<&Trf>) -> Result<String, E>,
    ) -> Result<String, ChangeError<E>> {
        let mut inner = self.lock();
        let trf = inner.trf.as_ref().map(|(t, _)| Arc::clone(t));
        let mut state = inner.state.clone();
        let detail = f(&mut state, trf.as_deref()).map_err(ChangeError::Refused)?;
        let files = Files {
            state: Some(&state),
            ..Files::default()
        };
        self.keep(files, act, &detail)?;
        inner.state = state;
        Ok(detail)
    }

    /// The state, the pairing file's rounds and player count, and the plan
    /// of the chosen round for the boards `sensors` (the daemon's, or
    /// every bridge's on a hub).
    pub fn view(&self, sensors: &[String]) -> (DeskState, Option<(Vec<u32>, usize)>, Plan) {
        let inner = self.lock();
        let trf = inner.trf.as_ref().map(|(t, _)| Arc::clone(t));
        let games = inner
            .state
            .round
            .map(|r| self.round_games(r))
            .unwrap_or_default();
        let plan = inner.state.plan(trf.as_deref(), sensors, &games);
        let file = trf.map(|t| (t.paired_rounds(), t.players.len()));
        (inner.state.clone(), file, plan)
    }

    /// Starts the chosen round on `sensors`, for `by`: the round is kept
    /// as started (journal line `start_round`) and its pairings become the
    /// round's (games started from now on belong to it); returns the round
    /// and each sensor board's pairing. Refused before anything is touched
    /// when nothing is assigned or it cannot be kept. The caller then sends
    /// the boards their `start_game`.
    pub fn start(&self, by: &str, sensors: &[String]) -> Result<Starts, ChangeError<DeskError>> {
        let mut inner = self.lock();
        let (trf, bytes) = inner
            .trf
            .as_ref()
            .map(|(t, b)| (Arc::clone(t), b.clone()))
            .ok_or(ChangeError::Refused(DeskError::NoFile))?;
        let (round, starts) = inner
            .state
            .to_start(&trf, sensors)
            .map_err(ChangeError::Refused)?;
        if starts.is_empty() {
            return Err(ChangeError::Refused(DeskError::NothingAssigned(round)));
        }
        let file = Path::new("pairings.trf");
        // Read before the start is kept, so that it loads once it is.
        if let Err(e) = crate::tournament::parse_pairings(&bytes, file, Some(round)) {
            warn!(error = %e, "desk: the pairing file does not load into the round");
            return Err(ChangeError::Refused(DeskError::NotPaired(round)));
        }
        let mut state = inner.state.clone();
        state.started = Some(round);
        let files = Files {
            state: Some(&state),
            ..Files::default()
        };
        let act = Act {
            by,
            action: "start_round",
        };
        let detail = format!("round {round} on {} boards", starts.len());
        self.keep(files, act, &detail)?;
        inner.state = state;
        if let Err(e) = self.round.load(&bytes, file, Some(round)) {
            warn!(error = %e, "desk: the pairing file does not load into the round");
        }
        Ok((round, starts))
    }

    /// Starts the chosen round on `sensors` for `by` ([`Desk::start`],
    /// off the async workers: the desk writes its files under its lock),
    /// then tells every assigned board through `router` to take up its
    /// pairing's game (`start_game`, a game in progress going on), and
    /// waits at most `wait` for all their answers (the boards answer in
    /// parallel).
    pub async fn start_round(
        self: &Arc<Self>,
        by: &str,
        sensors: Vec<String>,
        router: &Router,
        wait: Duration,
    ) -> Result<RoundStart, ChangeError<DeskError>> {
        let desk = Arc::clone(self);
        let who = by.to_string();
        let (round, starts) = tokio::task::spawn_blocking(move || desk.start(&who, &sensors))
            .await
            .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))?;
        // Every board is told first; then each answer is awaited.
        let waiting: Vec<_> = starts
            .iter()
            .map(|(sensor, pairing)| {
                let command = OperatorCommand::StartGame {
                    round,
                    board: pairing.board,
                    white: Some(pairing.white.clone()),
                    black: Some(pairing.black.clone()),
                    keep_game: true,
                };
                (sensor, router.dispatch(sensor, command, by, "desk"))
            })
            .collect();
        let deadline = tokio::time::Instant::now() + wait;
        let mut start = RoundStart {
            round,
            boards: starts.len(),
            ..RoundStart::default()
        };
        for (sensor, sent) in waiting {
            let answer = match sent {
                Ok(rx) => tokio::time::timeout_at(deadline, rx)
                    .await
                    .ok()
                    .and_then(Result::ok),
                Err(_) => None,
            };
            match answer {
                Some(ack) if ack.accepted && ack.message.starts_with(IN_PROGRESS) => {
                    start.kept.push(format!("{sensor} ({})", ack.message));
                }
                Some(ack) if ack.accepted => {}
                Some(ack) => start
                    .failed
                    .push(format!("board {sensor}: {}", ack.message)),
                None => start.failed.push(format!("board {sensor}: no answer")),
            }
        }
        info!(
            round,
            boards = start.boards,
            failed = start.failed.len(),
            still_playing = start.kept.len(),
            "desk: round started"
        );
        Ok(start)
    }

    /// The chosen round's games as PGN.
    pub fn round_pgn(&self) -> Result<String, DeskError> {
        let round = self.lock().state.round.ok_or(DeskError::NoRound)?;
        Ok(self.round.round_pgn(round))
    }

    /// The pairing file with the chosen round's results (the games', else
    /// the typed ones) filled in, for the pairing program.
    pub fn results_trf(&self) -> Result<(u32, Vec<u8>), DeskError> {
        let inner = self.lock();
        let (trf, _) = inner.trf.as_ref().ok_or(DeskError::NoFile)?;
        let round = inner.state.round.ok_or(DeskError::NoRound)?;
        let results = inner.state.results(round, &self.round.results(round));
        let swapped = self.round.swapped(round);
        Ok((round, trf.fill_played(round, &results, &swapped).bytes))
    }

    /// Round `round`'s games as the ledger holds them.
    fn round_games(&self, round: u32) -> RoundGames {
        RoundGames {
            results: self.round.results(round),
            sources: self.round.sources(round),
            swapped: self.round.swapped(round),
        }
    }

    /// Records `act`, an action that changes nothing the desk keeps (a
    /// login, a board's correction): a log line and a line of the desk's
    /// journal (`detail` says how). Under the desk's lock, like the lines
    /// of its changes.
    pub fn record(&self, act: Act<'_>, detail: &str) -> Result<(), StoreError> {
        let _held = self.lock();
        info!(by = act.by, action = act.action, detail, "desk action");
        self.store.append_action(&act.line(detail))
    }

    /// Keeps a change: `files` and `act`'s journal line (`detail`), all or
    /// nothing. Called under the desk's lock, before the change is put in
    /// force.
    fn keep(&self, files: Files<'_>, act: Act<'_>, detail: &str) -> Result<(), StoreError> {
        match self.store.keep(files, &act.line(detail)) {
            Ok(()) => {
                info!(by = act.by, action = act.action, detail, "desk action");
                Ok(())
            }
            Err(e) => {
                warn!(by = act.by, action = act.action, detail, error = %e, "desk action refused: it cannot be kept");
                Err(e)
            }
        }
    }
}

fn parse(bytes: &[u8], name: &str) -> Result<Trf, LoadError> {
    if !crate::tournament::trf::looks_like_trf(bytes) {
        return Err(LoadError::NotTrf(name.to_string()));
    }
    crate::tournament::parse_trf(bytes, name).map_err(|e| LoadError::Unreadable(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::super::tests::TRF;
    use super::*;
    use crate::tournament::{EventInfo, Pairings};

    const BY: &str = "desk: 127.0.0.1";

    /// Assigns sensor board `sensor` to pairing board `board`.
    fn assign(desk: &Desk, sensor: &str, board: u32) -> Result<String, ChangeError<DeskError>> {
        let act = Act {
            by: BY,
            action: "assign",
        };
        desk.change(act, |s, trf| {
            s.assign(trf, sensor, Some(board))?;
            Ok(format!("{sensor} plays {board}"))
        })
    }

    /// Makes the desk's journal unwritable (moved aside, a folder in its
    /// place), or writable again (moved back).
    fn journal_blocked(dir: &Path, blocked: bool) {
        let (path, aside) = (
            dir.join("desk/actions.jsonl"),
            dir.join("desk/actions.aside"),
        );
        if blocked {
            std::fs::rename(&path, &aside).unwrap();
            std::fs::create_dir(&path).unwrap();
        } else {
            std::fs::remove_dir(&path).unwrap();
            std::fs::rename(&aside, &path).unwrap();
        }
    }

    /// The actions in the desk's journal (every line must read).
    fn actions(dir: &Path) -> Vec<String> {
        std::fs::read_to_string(dir.join("desk/actions.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let v: serde_json::Value =
                    serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}"));
                format!(
                    "{} {}",
                    v["action"].as_str().unwrap(),
                    v["detail"].as_str().unwrap()
                )
            })
            .collect()
    }

    fn open(dir: &Path) -> (Desk, Arc<Round>) {
        let round = Round::new(EventInfo::default(), Pairings::default(), None, None).unwrap();
        let desk = Desk::new(Store::new(Some(dir)), Arc::clone(&round), None, None);
        (desk, round)
    }

    #[test]
    fn two_first_passwords_chosen_at_once_give_one_desk_password() {
        let dir = tempfile::tempdir().unwrap();
        let desk = Arc::new(open(dir.path()).0);
        let chosen: Vec<bool> = ["first password", "second password"]
            .map(|p| {
                let desk = Arc::clone(&desk);
                std::thread::spawn(move || desk.choose_password(BY, p).is_ok())
            })
            .map(|t| t.join().unwrap())
            .into();
        assert_eq!(chosen.iter().filter(|ok| **ok).count(), 1, "{chosen:?}");
        let won = if chosen[0] {
            "first password"
        } else {
            "second password"
        };
        assert!(desk.verify(won));
        // What is kept is the one that opens the desk after a restart.
        assert!(open(dir.path()).0.verify(won));
    }

    #[test]
    fn spaces_around_the_password_count_neither_when_chosen_nor_at_login() {
        let dir = tempfile::tempdir().unwrap();
        let (desk, _) = open(dir.path());
        desk.choose_password(BY, "  the desk key ").unwrap();
        assert!(desk.verify("the desk key"));
        assert!(desk.verify(" the desk key  "));
        assert!(!desk.verify("the desk"));
    }

    #[test]
    fn a_start_with_no_board_assigned_leaves_the_round_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (desk, round) = open(dir.path());
        desk.load_trf(BY, TRF.as_bytes(), "desk.trf").unwrap();
        let sensors = ["a".to_string()];
        assert!(matches!(
            desk.start(BY, &sensors).unwrap_err(),
            ChangeError::Refused(DeskError::NothingAssigned(2))
        ));
        assert_eq!(round.current(), 1, "the round is not loaded");
        assign(&desk, "a", 1).unwrap();
        let (r, starts) = desk.start(BY, &sensors).unwrap();
        assert_eq!((r, starts.len(), round.current()), (2, 1, 2));
    }

    #[test]
    fn a_change_that_cannot_be_kept_is_refused_and_the_desk_is_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let (desk, round) = open(dir.path());
        desk.load_trf(BY, TRF.as_bytes(), "desk.trf").unwrap();
        assign(&desk, "a", 1).unwrap();
        let kept = desk.view(&[]).0;
        journal_blocked(dir.path(), true);
        let e = assign(&desk, "b", 2).unwrap_err();
        assert!(matches!(e, ChangeError::NotKept(_)), "{e:?}");
        assert!(e.to_string().starts_with("not kept: "), "{e}");
        let act = Act {
            by: BY,
            action: "choose_round",
        };
        let e = desk
            .change(act, |s, trf| {
                s.choose_round(trf.unwrap(), 1)?;
                Ok::<_, DeskError>("round 1".to_string())
            })
            .unwrap_err();
        assert!(matches!(e, ChangeError::NotKept(_)), "{e:?}");
        // A refused start touches neither the state nor the round.
        let sensors = ["a".to_string()];
        let e = desk.start(BY, &sensors).unwrap_err();
        assert!(matches!(e, ChangeError::NotKept(_)), "{e:?}");
        assert_eq!(round.current(), 1, "the round is not loaded");
        // Nor does a refused pairing file, nor a refused first password.
        let other = TRF.replace("Desk Open", "Other Open");
        let e = desk
            .load_trf(BY, other.as_bytes(), "other.trf")
            .unwrap_err();
        assert!(matches!(e, LoadError::NotKept(_)), "{e:?}");
        let e = desk.choose_password(BY, "a first password").unwrap_err();
        assert!(matches!(e, PasswordError::NotKept(_)), "{e:?}");
        assert!(!desk.has_password());
        // What the desk shows is what it kept, and what a restart finds.
        assert_eq!(desk.view(&[]).0, kept);
        drop(desk);
        let (desk, _) = open(dir.path());
        assert_eq!(desk.view(&[]).0, kept);
        assert!(!desk.has_password());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("desk/pairings.trf")).unwrap(),
            TRF
        );
        // Once the journal can be written again, the same changes are kept.
        journal_blocked(dir.path(), false);
        assign(&desk, "b", 2).unwrap();
        assert_eq!(desk.start(BY, &sensors).unwrap().0, 2);
        let (desk, _) = open(dir.path());
        let state = desk.view(&[]).0;
        assert_eq!(state.assigned.get("b"), Some(&2));
        assert_eq!(state.started, Some(2));
        assert_eq!(
            actions(dir.path()),
            [
                "load_pairings desk.trf",
                "assign a plays 1",
                "assign b plays 2",
                "start_round round 2 on 1 boards"
            ]
        );
    }

    #[test]
    fn an_action_after_a_torn_journal_line_is_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (desk, _) = open(dir.path());
        desk.load_trf(BY, TRF.as_bytes(), "desk.trf").unwrap();
        // A full disk tore the next line: no newline at its end.
        let path = dir.path().join("desk/actions.jsonl");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(r#"{"t":1,"by":"desk: 127.0.0.1","action":"ass"#);
        std::fs::write(&path, text).unwrap();
        // After a restart, as after the disk was freed.
        let (desk, _) = open(dir.path());
        assign(&desk, "a", 1).unwrap();
        let login = Act {
            by: BY,
            action: "login",
        };
        desk.record(login, "").unwrap();
        assert_eq!(
            actions(dir.path()),
            ["load_pairings desk.trf", "assign a plays 1", "login "]
        );
    }
}
