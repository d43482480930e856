//! Which round of a TRF file to read, and why none can be.
//!
//! Design: a pairing program saves the file after each round's results
//! and again after pairing the next round; organisers often enter the
//! next round's byes (half-point byes asked for, known absences) before
//! they pair it. A file whose last paired round is finished and whose next
//! round holds only byes is between rounds: that next round is the one to
//! be played and it is not paired yet, so the file gives no boards (rather
//! than the finished round's boards again, whose games are over). Byes
//! entered for a later round while the last paired round is still being
//! played (its results not all in) are advance requests: the round being
//! played is read.
//!
//! The paperwork reads otherwise ([`Trf::round_of_record`]): `boardcast
//! trf pairings` and `trf results` (and the operator's desk, whose default
//! is [`Trf::round_to_read`]) are about the last round with a board, the
//! one whose results are written back; a later round with only byes
//! entered is named beside it in one line ([`NotPaired::note`]), not an
//! error. Asked for by number, that later round is still not paired.

use std::fmt;

use super::trf::{Code, Trf};

/// Why a TRF file gives no round to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotPaired {
    /// No round has a pair, and none has byes entered.
    NoRound,
    /// `round` has only byes or absences entered (`players`, by start
    /// rank); `last` is the last paired round, finished.
    ByesOnly {
        /// The round not paired yet.
        round: u32,
        /// Who has a bye or absence entered in it.
        players: Vec<u32>,
        /// The last paired round, if any.
        last: Option<u32>,
    },
}

impl NotPaired {
    /// The round the file is at: the one not paired yet, when known.
    pub fn round(&self) -> Option<u32> {
        match self {
            NotPaired::NoRound => None,
            NotPaired::ByesOnly { round, .. } => Some(*round),
        }
    }
}

impl NotPaired {
    /// One line naming this round, not paired yet, beside round `read`,
    /// the one read instead: `round 5 has only byes entered (players 3,
    /// 7), not paired yet: round 4 is read`.
    pub fn note(&self, read: u32) -> String {
        match self {
            NotPaired::NoRound => format!("no later round is paired: round {read} is read"),
            NotPaired::ByesOnly { round, players, .. } => {
                let list: Vec<String> = players.iter().map(u32::to_string).collect();
                format!(
                    "round {round} has only byes entered (players {}), not paired yet: round {read} is read",
                    list.join(", ")
                )
            }
        }
    }
}

/// The round the paperwork reads ([`Trf::round_of_record`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundOfRecord {
    /// The round read: the one asked for, else the last with a board.
    pub round: u32,
    /// A later round with only byes entered, not paired yet, to name.
    pub later: Option<NotPaired>,
}

impl fmt::Display for NotPaired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotPaired::NoRound => write!(
                f,
                "no round is paired yet: pair the round in the pairing program and export the file again"
            ),
            NotPaired::ByesOnly {
                round,
                players,
                last,
            } => {
                let list: Vec<String> = players.iter().map(u32::to_string).collect();
                write!(
                    f,
                    "round {round} has only byes entered (players {}); it is not paired yet",
                    list.join(", ")
                )?;
                if let Some(last) = last {
                    write!(f, " (round {last}, the last paired, is finished)")?;
                }
                Ok(())
            }
        }
    }
}

impl Trf {
    /// The round to read for `asked` (the configured or requested round):
    /// `asked` when the file pairs it; else, when the round after the last
    /// paired one has only byes entered and the last paired round is
    /// finished (module documentation), that round is not paired yet;
    /// else the last paired round ([`Trf::round_to_read`]).
    pub fn choose_round(&self, asked: Option<u32>) -> Result<u32, NotPaired> {
        let paired = self.paired_rounds();
        if let Some(a) = asked
            && paired.contains(&a)
        {
            return Ok(a);
        }
        if let Some(why @ NotPaired::ByesOnly { round, .. }) = self.byes_only_round()
            && asked.is_none_or(|a| a == round)
        {
            return Err(why);
        }
        self.round_to_read(asked).ok_or(NotPaired::NoRound)
    }

    /// The round `boardcast trf pairings` and `trf results` read (the
    /// module): `asked` when the file pairs it; without `asked`, the last
    /// round with at least one board, with the round after it when that
    /// one has only byes entered (named, not an error). An error when the
    /// file pairs no round, or when `asked` is the round with only byes;
    /// another round `asked` that the file does not pair gives the last
    /// paired one, for the caller to refuse.
    pub fn round_of_record(&self, asked: Option<u32>) -> Result<RoundOfRecord, NotPaired> {
        let later = self.byes_only_round();
        if let (Some(a), Some(why @ NotPaired::ByesOnly { round, .. })) = (asked, &later)
            && a == *round
        {
            return Err(why.clone());
        }
        match self.round_to_read(asked) {
            Some(round) => Ok(RoundOfRecord {
                round,
                later: later.filter(|_| asked.is_none()),
            }),
            None => Err(later.unwrap_or(NotPaired::NoRound)),
        }
    }

    /// The round after the last paired one, when nobody is paired in it,
    /// someone has a bye or absence entered, and the last paired round
    /// (if any) has every result in.
    fn byes_only_round(&self) -> Option<NotPaired> {
        let last = self.paired_rounds().last().copied();
        let round = last.map_or(1, |l| l + 1);
        let players: Vec<u32> = self
            .byes(round)
            .into_iter()
            .filter(|(_, code)| code.is_some_and(Code::is_bye) || *code == Some(Code::ForfeitLoss))
            .map(|(rank, _)| rank)
            .collect();
        let finished = last.is_none_or(|l| {
            self.boards(l)
                .iter()
                .all(|b| b.white_result.is_some() && b.black_result.is_some())
        });
        (!players.is_empty() && finished).then_some(NotPaired::ByesOnly {
            round,
            players,
            last,
        })
    }
}
