//! The desk as the daemon runs it: the operator's set-up under a lock,
//! written to its [`Store`] after every change, and the round it starts
//! (the pairing file handed to [`Round`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use tracing::{info, warn};

use super::store::Store;
use super::{DeskError, DeskState, PasswordHash, Plan, RoundGames};
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
    pub fn choose_password(&self, password: &str) -> Result<(), String> {
        const SET: &str = "the desk password is set already";
        if self.has_password() {
            return Err(SET.into());
        }
        let hash = PasswordHash::new(password.trim())?;
        let mut inner = self.lock();
        if self.configured_password.is_some() || inner.password.is_some() {
            return Err(SET.into());
        }
        self.store
            .write_password(&hash)
            .map_err(|e| format!("the password cannot be kept: {e}"))?;
        inner.password = Some(hash);
        Ok(())
    }

    /// Takes up a pairing file (`name`: its name, for the operator).
    pub fn load_trf(&self, bytes: &[u8], name: &str) -> Result<(), LoadError> {
        let trf = parse(bytes, name)?;
        self.store
            .write_trf(bytes)
            .map_err(|e| LoadError::Unreadable(format!("the file cannot be kept: {e}")))?;
        let mut inner = self.lock();
        let rounds = trf.paired_rounds();
        if inner.state.round.is_none_or(|r| !rounds.contains(&r)) {
            inner.state.round = trf.round_to_read(None);
        }
        inner.state.trf_name = Some(name.to_string());
        inner.trf = Some((Arc::new(trf), bytes.to_vec()));
        info!(file = name, rounds = ?rounds, "desk: pairing file loaded");
        self.save(&inner);
        Ok(())
    }

    /// Takes up the configured pairing file.
    pub fn load_configured(&self) -> Result<(), LoadError> {
        let path = self.configured.as_ref().ok_or(LoadError::NoneConfigured)?;
        let bytes = crate::tournament::read_pairings_bytes(path)
            .map_err(|e| LoadError::Unreadable(e.to_string()))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.load_trf(&bytes, &name)
    }

    /// Applies a change to the state (kept when it succeeds).
    pub fn change(
        &self,
        f: impl FnOnce(&mut DeskState, Option<&Trf>) -> Result<(), DeskError>,
    ) -> Result<(), DeskError> {
        let mut inner = self.lock();
        let trf = inner.trf.as_ref().map(|(t, _)| Arc::clone(t));
        f(&mut inner.state, trf.as_deref())?;
        self.save(&inner);
        Ok(())
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

    /// Prepares the chosen round's start on `sensors`: its pairings become the round's
    /// (games started from now on belong to it); returns the round and
    /// each sensor board's pairing. The caller sends the boards their
    /// `start_game` and then calls [`Desk::started`].
    pub fn start(&self, sensors: &[String]) -> Result<(u32, Vec<(String, Pairing)>), DeskError> {
        let inner = self.lock();
        let (trf, bytes) = inner.trf.as_ref().ok_or(DeskError::NoFile)?;
        let (round, starts) = inner.state.to_start(trf, sensors)?;
        if starts.is_empty() {
            // Refused before the round is touched.
            return Err(DeskError::NothingAssigned(round));
        }
        if let Err(e) = self
            .round
            .load(bytes, Path::new("pairings.trf"), Some(round))
        {
            warn!(error = %e, "desk: the pairing file does not load into the round");
            return Err(DeskError::NotPaired(round));
        }
        Ok((round, starts))
    }

    /// The round `round` has started.
    pub fn started(&self, round: u32) {
        let mut inner = self.lock();
        inner.state.started = Some(round);
        self.save(&inner);
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

    /// Records an action of the desk: a log line and a line of the
    /// desk's journal (`who` made it; `what` names it; `detail` says how).
    pub fn record(&self, who: &str, what: &str, detail: &str) {
        info!(by = who, action = what, detail, "desk action");
        let line = serde_json::json!({
            "t": crate::wall::unix_ms(),
            "by": who,
            "action": what,
            "detail": detail,
        });
        if let Err(e) = self.store.append_action(&line) {
            warn!(error = %e, "the desk's journal cannot be written");
        }
    }

    fn save(&self, inner: &Inner) {
        if let Err(e) = self.store.write_state(&inner.state) {
            warn!(error = %e, "the desk's state cannot be kept: a restart would forget this change");
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
    use super::*;
    use crate::tournament::{EventInfo, Pairings};

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
                std::thread::spawn(move || desk.choose_password(p).is_ok())
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
        desk.choose_password("  the desk key ").unwrap();
        assert!(desk.verify("the desk key"));
        assert!(desk.verify(" the desk key  "));
        assert!(!desk.verify("the desk"));
    }

    #[test]
    fn a_start_with_no_board_assigned_leaves_the_round_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (desk, round) = open(dir.path());
        desk.load_trf(super::super::tests::TRF.as_bytes(), "desk.trf")
            .unwrap();
        let sensors = ["a".to_string()];
        assert_eq!(
            desk.start(&sensors).unwrap_err(),
            DeskError::NothingAssigned(2)
        );
        assert_eq!(round.current(), 1, "the round is not loaded");
        desk.change(|s, trf| s.assign(trf, "a", Some(1))).unwrap();
        let (r, starts) = desk.start(&sensors).unwrap();
        assert_eq!((r, starts.len(), round.current()), (2, 1, 2));
    }
}
