//! The operator's desk: what the operator sets up for a round from the
//! browser (the pairing file, the round, which sensor board plays which
//! pairing board, results typed for games without a sensor board), kept in
//! the recorder folder so a restart finds it, and the round's plan drawn
//! from it (the pairings with their boards, the warnings, the results that
//! differ between boards and file).
//!
//! Pure but [`store`] (the files): the web edge ([`crate::web`]) serves it
//! and turns its actions into operator commands, which go through the same
//! checks and the same record as signed ones.

pub mod live;
pub mod store;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::sink::ledger::Source;
use crate::tournament::trf::{Code, Trf};
use crate::tournament::{Pairing, Player};

/// What the operator set up on the desk (`<recorder>/desk/state.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeskState {
    /// The name of the pairing file loaded (its bytes are kept beside).
    #[serde(default)]
    pub trf_name: Option<String>,
    /// The round chosen.
    #[serde(default)]
    pub round: Option<u32>,
    /// The round last started.
    #[serde(default)]
    pub started: Option<u32>,
    /// Sensor board id to the pairing board it plays.
    #[serde(default)]
    pub assigned: BTreeMap<String, u32>,
    /// Results typed for pairing boards without a sensor board, by round
    /// and board.
    #[serde(default)]
    pub typed: BTreeMap<u32, BTreeMap<u32, String>>,
}

/// Why the desk refuses a change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeskError {
    /// No pairing file is loaded.
    #[error("no pairing file is loaded: load the pairing program's TRF file first")]
    NoFile,
    /// The file does not pair this round.
    #[error("the pairing file does not pair round {0}")]
    NotPaired(u32),
    /// No round is chosen.
    #[error("choose a round first")]
    NoRound,
    /// The round has no such board.
    #[error("round {round} has no board {board}")]
    NoSuchBoard {
        /// The round.
        round: u32,
        /// The board asked for.
        board: u32,
    },
    /// Another sensor board plays that pairing board already.
    #[error("pairing board {board} is played on sensor board {other} already")]
    Taken {
        /// The pairing board.
        board: u32,
        /// The sensor board it is assigned to.
        other: String,
    },
    /// Not a result the desk can type.
    #[error("`{0}`: a result is 1-0, 0-1 or 1/2-1/2 (or nothing, to clear it)")]
    BadResult(String),
    /// The daemon has no such sensor board.
    #[error("there is no sensor board `{0}`")]
    NoSuchSensor(String),
    /// No sensor board plays a pairing board of the round.
    #[error("no sensor board is assigned to a pairing board of round {0}")]
    NothingAssigned(u32),
}

/// One pairing of the chosen round, as the desk shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlannedBoard {
    /// The pairing board.
    pub board: u32,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// The sensor board that plays it, if any.
    pub sensor: Option<String>,
    /// The result typed on the desk, if any.
    pub typed: Option<String>,
    /// The result the round reports: the typed one, else the game's.
    pub result: Option<String>,
    /// How the result came: `board`, `kings`, `operator` or `typed`.
    pub source: Option<&'static str>,
    /// Whether the players sit the other way round from the pairing (the
    /// result is by the colours as played, Law 7.3).
    pub swapped: bool,
    /// The result the file holds, as words.
    pub file: Option<String>,
}

/// How far the round is: results in, of pairings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Progress {
    /// Pairings with a result.
    pub results: usize,
    /// Pairings of the round.
    pub pairings: usize,
}

/// The round's games as the ledger holds them, for the plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundGames {
    /// Pairing board to its game's result (`*` included).
    pub results: BTreeMap<u32, String>,
    /// How each result came.
    pub sources: BTreeMap<u32, Source>,
    /// The pairing boards played with the colours reversed.
    pub swapped: BTreeSet<u32>,
}

/// A player of the round without a board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bye {
    /// The player's name.
    pub player: String,
    /// The TRF code (`F`, `H`, `U`, `Z`), if any.
    pub code: Option<char>,
    /// Why the player has no board, in words.
    pub reason: String,
}

/// Why a player of the round has no board, from the file's code.
pub fn bye_reason(code: Option<Code>) -> &'static str {
    match code {
        Some(Code::HalfBye) => "half-point bye",
        Some(Code::FullBye) => "full-point bye",
        Some(Code::PairingBye) => "pairing-allocated bye",
        Some(Code::ZeroBye) => "zero-point bye (absent)",
        Some(Code::ForfeitWin) => "wins by forfeit",
        Some(Code::ForfeitLoss) => "loses by forfeit",
        Some(_) => "a result without an opponent",
        None => "not paired in this round",
    }
}

/// A board whose result differs between the game and the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The pairing board.
    pub board: u32,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The file's result, as words.
    pub file: String,
    /// The game's result.
    pub game: String,
}

/// The chosen round as the desk shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The pairings with their boards.
    pub pairings: Vec<PlannedBoard>,
    /// Players without a board.
    pub byes: Vec<Bye>,
    /// What the operator should look at before starting.
    pub warnings: Vec<String>,
    /// Results that differ between the boards and the file.
    pub differences: Vec<Difference>,
    /// How many pairings have a result.
    pub progress: Progress,
}

/// The results a desk can type.
const RESULTS: [&str; 3] = ["1-0", "0-1", "1/2-1/2"];

impl DeskState {
    /// Chooses `round`, which `trf` must pair.
    pub fn choose_round(&mut self, trf: &Trf, round: u32) -> Result<(), DeskError> {
        if !trf.paired_rounds().contains(&round) {
            return Err(DeskError::NotPaired(round));
        }
        self.round = Some(round);
        Ok(())
    }

    /// Assigns sensor board `sensor` to pairing board `board` of the chosen
    /// round (`None`: to none). A pairing board plays on one sensor board.
    pub fn assign(
        &mut self,
        trf: Option<&Trf>,
        sensor: &str,
        board: Option<u32>,
    ) -> Result<(), DeskError> {
        let Some(board) = board else {
            self.assigned.remove(sensor);
            return Ok(());
        };
        let trf = trf.ok_or(DeskError::NoFile)?;
        let round = self.round.ok_or(DeskError::NoRound)?;
        if trf.boards(round).iter().all(|b| b.board != board) {
            return Err(DeskError::NoSuchBoard { round, board });
        }
        if let Some((other, _)) = self
            .assigned
            .iter()
            .find(|(s, b)| **b == board && s.as_str() != sensor)
        {
            return Err(DeskError::Taken {
                board,
                other: other.clone(),
            });
        }
        self.assigned.insert(sensor.to_string(), board);
        Ok(())
    }

    /// Types the result of pairing board `board` of the chosen round
    /// (empty: clears it).
    pub fn type_result(&mut self, board: u32, result: &str) -> Result<(), DeskError> {
        let round = self.round.ok_or(DeskError::NoRound)?;
        let typed = self.typed.entry(round).or_default();
        match result.trim() {
            "" => {
                typed.remove(&board);
            }
            r if RESULTS.contains(&r) => {
                typed.insert(board, r.to_string());
            }
            r => return Err(DeskError::BadResult(r.to_string())),
        }
        Ok(())
    }

    /// The results of `round` the desk reports: `games` (pairing board to
    /// the board's game result) with the typed results over them. A
    /// result typed for a pairing is the operator's correction of it: it
    /// wins over the board's game (clear it to let the game's stand).
    pub fn results(&self, round: u32, games: &BTreeMap<u32, String>) -> BTreeMap<u32, String> {
        let mut out = games.clone();
        for (board, r) in self.typed.get(&round).into_iter().flatten() {
            out.insert(*board, r.clone());
        }
        out
    }

    /// The plan of the chosen round: `trf`'s pairings with their sensor
    /// boards among `sensors` (the daemon's boards), and the boards'
    /// `games` results (pairing board to result) for it.
    pub fn plan(&self, trf: Option<&Trf>, sensors: &[String], games: &RoundGames) -> Plan {
        let mut plan = Plan::default();
        let (Some(trf), Some(round)) = (trf, self.round) else {
            if trf.is_none() {
                plan.warnings
                    .push("no pairing file is loaded: load the pairing program's TRF file".into());
            } else {
                plan.warnings.push("choose the round to play".into());
            }
            return plan;
        };
        let results = self.results(round, &games.results);
        let typed = self.typed.get(&round);
        let boards = trf.boards(round);
        for b in &boards {
            let sensor = self
                .assigned
                .iter()
                .find(|(s, n)| **n == b.board && sensors.contains(s))
                .map(|(s, _)| s.clone());
            let typed = typed.and_then(|t| t.get(&b.board)).cloned();
            let result = results
                .get(&b.board)
                .filter(|r| RESULTS.contains(&r.as_str()))
                .cloned();
            let source = match (&typed, &result) {
                (Some(_), _) => Some(Source::Typed),
                (None, Some(_)) => games.sources.get(&b.board).copied(),
                (None, None) => None,
            };
            if sensor.is_none() && typed.is_none() {
                plan.warnings.push(format!(
                    "pairing board {} has no sensor board: type its result when the game ends",
                    b.board
                ));
            }
            plan.pairings.push(PlannedBoard {
                board: b.board,
                white: trf.player(b.white),
                black: trf.player(b.black),
                sensor,
                typed,
                result,
                source: source.map(Source::name),
                swapped: games.swapped.contains(&b.board),
                file: b.file_result(),
            });
        }
        for s in sensors {
            match self.assigned.get(s) {
                None => plan
                    .warnings
                    .push(format!("sensor board {s} has no pairing board")),
                Some(n) if boards.iter().all(|b| b.board != *n) => plan.warnings.push(format!(
                    "sensor board {s} is assigned to board {n}, which round {round} does not have"
                )),
                Some(_) => {}
            }
        }
        plan.byes = trf
            .byes(round)
            .into_iter()
            .map(|(rank, code)| Bye {
                player: trf.player(rank).name,
                code: code.map(Code::letter),
                reason: bye_reason(code).to_string(),
            })
            .collect();
        plan.progress = Progress {
            results: plan.pairings.iter().filter(|p| p.result.is_some()).count(),
            pairings: plan.pairings.len(),
        };
        plan.differences = trf
            .conflicts_played(round, &results, &games.swapped)
            .into_iter()
            .map(|c| Difference {
                board: c.board,
                white: c.white,
                black: c.black,
                file: c.file,
                game: c.game,
            })
            .collect();
        plan
    }

    /// The games to start for the chosen round: each sensor board among
    /// `sensors` assigned to one of its pairing boards, with that pairing.
    pub fn to_start(
        &self,
        trf: &Trf,
        sensors: &[String],
    ) -> Result<(u32, Vec<(String, Pairing)>), DeskError> {
        let round = self.round.ok_or(DeskError::NoRound)?;
        let pairings = trf.pairings(round);
        let starts = sensors
            .iter()
            .filter_map(|s| {
                let n = self.assigned.get(s)?;
                Some((s.clone(), pairings.board(*n)?.clone()))
            })
            .collect();
        Ok((round, starts))
    }
}

/// The desk password, kept as a salted PBKDF2-HMAC-SHA256 hash (never the
/// password itself): `pbkdf2-sha256$<rounds>$<salt hex>$<hash hex>`.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(String);

/// PBKDF2 rounds for a new hash: a quarter of a second or so on a Pi, so
/// guessing offline is slow and a login is not.
const PBKDF2_ROUNDS: u32 = 100_000;
/// The shortest desk password accepted.
pub const MIN_PASSWORD_CHARS: usize = 8;

impl PasswordHash {
    /// A hash of `password` with a fresh random salt; a password shorter
    /// than [`MIN_PASSWORD_CHARS`] is refused.
    pub fn new(password: &str) -> Result<PasswordHash, String> {
        if password.chars().count() < MIN_PASSWORD_CHARS {
            return Err(format!(
                "the desk password needs at least {MIN_PASSWORD_CHARS} characters"
            ));
        }
        use rand::RngCore;
        let mut salt = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut salt);
        Ok(PasswordHash(format!(
            "pbkdf2-sha256${PBKDF2_ROUNDS}${}${}",
            hex::encode(salt),
            hex::encode(derive(password, &salt, PBKDF2_ROUNDS))
        )))
    }

    /// A hash as written by [`PasswordHash::as_str`]; `None` when it is not one.
    pub fn parse(text: &str) -> Option<PasswordHash> {
        let parts: Vec<&str> = text.trim().split('$').collect();
        match parts[..] {
            ["pbkdf2-sha256", rounds, salt, hash]
                if rounds.parse::<u32>().is_ok_and(|r| r > 0)
                    && hex::decode(salt).is_ok()
                    && hex::decode(hash).is_ok_and(|h| h.len() == 32) =>
            {
                Some(PasswordHash(text.trim().to_string()))
            }
            _ => None,
        }
    }

    /// The hash as kept in its file.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `password` is the one hashed (compared in constant time).
    pub fn verify(&self, password: &str) -> bool {
        let parts: Vec<&str> = self.0.split('$').collect();
        let (Some(rounds), Some(salt), Some(hash)) = (
            parts.get(1).and_then(|r| r.parse::<u32>().ok()),
            parts.get(2).and_then(|s| hex::decode(s).ok()),
            parts.get(3).and_then(|h| hex::decode(h).ok()),
        ) else {
            return false;
        };
        let got = derive(password, &salt, rounds);
        got.len() == hash.len() && got.iter().zip(&hash).fold(0, |d, (a, b)| d | (a ^ b)) == 0
    }
}

impl std::fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PasswordHash(..)")
    }
}

fn derive(password: &str, salt: &[u8], rounds: u32) -> [u8; 32] {
    let mut out = [0u8; 32];
    pbkdf2::pbkdf2_hmac::<sha2::Sha256>(password.as_bytes(), salt, rounds, &mut out);
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Two rounds, four players: round 1 played (1-2 1-0, 3-4 drawn),
    /// round 2 paired (3-1 on board 1, 4-2 on board 2), results blank.
    pub(super) const TRF: &str = "012 Desk Open\n\
001    1 m GM Alpha, One                        2700 NOR     1503014 1990/01/01  1.0    1     2 w 1     3 b\n\
001    2 m IM Beta, Two                         2600 SWE     1700001 1991/01/01  0.0    4     1 b 0     4 b\n\
001    3 m    Gamma, Three                      2500 DEN     1600001 1992/01/01  0.5    2     4 w =     1 w\n\
001    4 m    Delta, Four                       2400 FIN     1400001 1993/01/01  0.5    3     3 b =     2 w\n\
XXR 2\n";

    fn trf() -> Trf {
        crate::tournament::trf::parse(TRF.as_bytes()).expect("the test file reads")
    }

    fn sensors() -> Vec<String> {
        vec!["a".into(), "b".into(), "c".into()]
    }

    #[test]
    fn a_round_is_planned_with_its_boards_warnings_and_differences() {
        let trf = trf();
        let mut desk = DeskState::default();
        assert_eq!(desk.choose_round(&trf, 3), Err(DeskError::NotPaired(3)));
        desk.choose_round(&trf, 1).unwrap();
        desk.assign(Some(&trf), "a", Some(1)).unwrap();
        assert_eq!(
            desk.assign(Some(&trf), "b", Some(1)),
            Err(DeskError::Taken {
                board: 1,
                other: "a".into()
            })
        );
        assert_eq!(
            desk.assign(Some(&trf), "b", Some(9)),
            Err(DeskError::NoSuchBoard { round: 1, board: 9 })
        );
        desk.type_result(2, "0-1").unwrap();
        assert!(desk.type_result(2, "2-0").is_err());
        // Board 1's game ended 0-1; the file says 1-0.
        let games = RoundGames {
            results: BTreeMap::from([(1, "0-1".to_string())]),
            sources: BTreeMap::from([(1, Source::Kings)]),
            ..RoundGames::default()
        };
        let plan = desk.plan(Some(&trf), &sensors(), &games);
        assert_eq!(plan.pairings.len(), 2);
        let first = &plan.pairings[0];
        assert_eq!(first.white.name, "Alpha, One");
        assert_eq!(first.white.title.as_deref(), Some("GM"));
        assert_eq!(first.sensor.as_deref(), Some("a"));
        assert_eq!(first.result.as_deref(), Some("0-1"));
        assert_eq!(first.source, Some("kings"));
        assert_eq!(plan.pairings[1].typed.as_deref(), Some("0-1"));
        assert_eq!(plan.pairings[1].result.as_deref(), Some("0-1"));
        assert_eq!(plan.pairings[1].source, Some("typed"));
        assert_eq!(
            plan.progress,
            Progress {
                results: 2,
                pairings: 2
            }
        );
        assert_eq!(
            plan.warnings,
            [
                "sensor board b has no pairing board",
                "sensor board c has no pairing board"
            ]
        );
        let boards: Vec<u32> = plan.differences.iter().map(|d| d.board).collect();
        assert_eq!(boards, [1, 2], "{:?}", plan.differences);
        // Round 2: board 2 has neither a sensor board nor a typed result.
        desk.choose_round(&trf, 2).unwrap();
        let plan = desk.plan(Some(&trf), &sensors(), &RoundGames::default());
        assert_eq!(plan.progress.results, 0);
        assert!(
            plan.warnings
                .iter()
                .any(|w| w.starts_with("pairing board 2 has no sensor board")),
            "{:?}",
            plan.warnings
        );
        let (round, starts) = desk.to_start(&trf, &sensors()).unwrap();
        assert_eq!(round, 2);
        assert_eq!(starts.len(), 1);
        assert_eq!(starts[0].0, "a");
        assert_eq!(starts[0].1.white.name, "Gamma, Three");
        assert_eq!(starts[0].1.black.name, "Alpha, One");
    }

    #[test]
    fn a_typed_result_is_the_pairings_correction_and_wins_over_the_game() {
        let mut desk = DeskState {
            round: Some(1),
            ..DeskState::default()
        };
        desk.type_result(1, "1-0").unwrap();
        desk.type_result(2, "1/2-1/2").unwrap();
        let games = BTreeMap::from([(1, "0-1".to_string()), (2, "*".to_string())]);
        let r = desk.results(1, &games);
        assert_eq!(r[&1], "1-0");
        assert_eq!(r[&2], "1/2-1/2");
        desk.type_result(2, "").unwrap();
        desk.type_result(1, "").unwrap();
        assert_eq!(desk.results(1, &games)[&2], "*");
        assert_eq!(desk.results(1, &games)[&1], "0-1");
    }

    #[test]
    fn the_password_is_kept_hashed_and_checked() {
        assert!(PasswordHash::new("short").is_err());
        let h = PasswordHash::new("correct horse").unwrap();
        assert!(!h.as_str().contains("horse"));
        let back = PasswordHash::parse(h.as_str()).unwrap();
        assert!(back.verify("correct horse"));
        assert!(!back.verify("correct horsE"));
        assert!(PasswordHash::parse("plain text").is_none());
        // Two hashes of one password differ (the salt).
        assert_ne!(PasswordHash::new("correct horse").unwrap(), h);
    }
}
