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
