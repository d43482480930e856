//! The game a board plays, chosen at run time: [`AnyGame`], one enum over
//! the games' readers, each arm the same [`Reader`] of its game, as
//! shakmaty's `VariantPosition` chooses a variant.
//!
//! Every board walks the same corridor (driver → neutral readings →
//! [`super::BoardPipeline`] → its game's [`Reader`] → the generic
//! [`crate::track::Reconstructor`] → events); how a game's boards are read is the
//! game's [`Sensing`](crate::games::sensing::Sensing) hooks
//! (`games/chess/reading.rs`, `games/diffing.rs`).
//!
//! The games' records are built from the events, for every game alike
//! ([`crate::sink::record::GameLog`]).

use boardcast_protocols::reading::{MemoryRecord, Reading};

use super::reader::{Reader, Report};
use crate::event::{EventKind, GameId, Millis, Side};
use crate::games::chess::Chess;
use crate::games::draughts::Draughts;
use crate::games::xiangqi::Xiangqi;
use crate::games::{Game, GameOptions};
use crate::track::{Config, Press};

/// The game a board plays, chosen at run time.
#[derive(Debug)]
pub enum AnyGame {
    /// Chess (standard and Chess960, as the options allow).
    Chess(Box<Reader<Chess>>),
    /// English draughts.
    Draughts(Box<Reader<Draughts>>),
    /// Xiangqi.
    Xiangqi(Box<Reader<Xiangqi>>),
}

/// `$e` with `$r` bound to the reader of whichever game, and `$recon` to
/// its reconstructor.
macro_rules! each {
    ($self:expr, $r:ident => $e:expr) => {
        match $self {
            AnyGame::Chess($r) => $e,
            AnyGame::Draughts($r) => $e,
            AnyGame::Xiangqi($r) => $e,
        }
    };
}

impl AnyGame {
    /// A reader of `game` under the event's `options`.
    pub fn new(game: GameId, config: Config, options: GameOptions) -> AnyGame {
        match game {
            GameId::Chess => {
                AnyGame::Chess(Box::new(Reader::new(config, Chess::new(options.variant))))
            }
            GameId::Draughts => AnyGame::Draughts(Box::new(Reader::new(config, Draughts))),
            GameId::Xiangqi => AnyGame::Xiangqi(Box::new(Reader::new(
                config,
                Xiangqi {
                    limit: options.move_limit.unwrap_or_default(),
                },
            ))),
        }
    }

    /// The game played.
    pub fn id(&self) -> GameId {
        match self {
            AnyGame::Chess(_) => GameId::Chess,
            AnyGame::Draughts(_) => GameId::Draughts,
            AnyGame::Xiangqi(_) => GameId::Xiangqi,
        }
    }

    /// The chess reader, on a chess board.
    pub fn chess(&self) -> Option<&Reader<Chess>> {
        match self {
            AnyGame::Chess(c) => Some(c),
            _ => None,
        }
    }

    /// A board's whole grid or one square's new content, at `t`.
    pub(super) fn handle_reading(&mut self, t: Millis, reading: &Reading, report: Report<'_>) {
        each!(self, r => r.handle_reading(t, reading, report))
    }

    /// A DGT board's memory (chess reads it; the other games start afresh
    /// from the board dump that follows).
    pub(super) fn recover_from_memory(
        &mut self,
        t: Millis,
        records: &[MemoryRecord],
        report: Report<'_>,
    ) {
        each!(self, r => r.recover_from_memory(t, records, report))
    }

    /// The next event, in publication order.
    pub(super) fn poll_event(&mut self) -> Option<(Millis, EventKind)> {
        each!(self, r => r.poll_event())
    }

    /// When a timer is next due.
    pub fn poll_timeout(&self) -> Option<Millis> {
        each!(self, r => r.reconstructor().poll_timeout())
    }

    /// Fires the timer due at `due`.
    pub(super) fn handle_timeout(&mut self, due: Millis) {
        each!(self, r => r.recon.handle_timeout(due))
    }

    /// The operator sets the game's result.
    pub(super) fn set_result(&mut self, t: Millis, result: &str, reason: &str) {
        each!(self, r => r.recon.set_result(t, result, reason))
    }

    /// The operator restarts the board's game.
    pub(super) fn restart(&mut self, t: Millis) {
        each!(self, r => r.recon.restart(t))
    }

    /// The board stands the other way round (see
    /// [`crate::track::Reconstructor::turn_round`]).
    pub(super) fn turn_round(&mut self, t: Millis) {
        each!(self, r => r.recon.turn_round(t))
    }

    /// A clock press by `side` at `t` (Law 6.2a: their move is complete).
    pub(super) fn handle_clock_press(&mut self, t: Millis, side: Side) -> Press {
        each!(self, r => r.recon.handle_clock_press(t, side))
    }

    /// The game's ply count and who made the last ply.
    pub fn last_mover(&self) -> (usize, Option<Side>) {
        each!(self, r => r.reconstructor().last_mover())
    }

    /// The game's rule book: its article for a situation, and how it is
    /// cited in a message (`Law 6.9`, `art. 1.30`, `Art. 16`).
    pub fn article(&self, a: crate::games::Article) -> Option<(&'static str, String)> {
        each!(self, r => {
            let rules = r.reconstructor().rules();
            rules.article(a).map(|n| (n, rules.cite(n)))
        })
    }

    /// For a flag alert: the moves `side` has made in the game, and whether
    /// its opponent cannot checkmate by any series of legal moves (chess,
    /// Law 6.9; always `false` in the other games).
    pub fn flag_facts(&self, side: Side) -> (u32, bool) {
        each!(self, r => r.flag_facts(side))
    }

    /// Takes up a game from its record, as a capture slice's header gives
    /// it: `start` (a FEN of the game), the moves' ids played from it, and
    /// whether the board stands turned round. The board is taken to show
    /// the position they reach. The error says which part is wrong.
    pub(super) fn take_up(
        &mut self,
        at: Millis,
        start: &str,
        ids: &[String],
        rotated: bool,
    ) -> Result<(), String> {
        each!(self, r => r.take_up(at, start, ids, rotated))
    }

    /// Whether the board shows the published game exactly (see
    /// [`crate::track::Reconstructor::shows_game`]).
    pub fn shows_game(&self) -> bool {
        each!(self, r => r.reconstructor().shows_game())
    }

    /// Whether a game is on (a start position was recognised).
    pub fn in_game(&self) -> bool {
        each!(self, r => r.reconstructor().game().is_some())
    }

    /// Whether the board stands turned round.
    pub fn is_rotated(&self) -> bool {
        each!(self, r => r.reconstructor().is_rotated())
    }

    /// The pieces as the sensors see them (the board part of the game's
    /// FEN, in the game's orientation).
    pub fn sensed_placement(&self) -> String {
        each!(self, r => r.reconstructor().sensed_placement())
    }

    /// With no game on, the set-up against the game's start when the
    /// board is close to one: the `setup` alert's sentence and the squares
    /// that differ, named as the game names them. `None` with a game on,
    /// or with the board far from every start position.
    pub fn setup_gap(&self) -> Option<(String, Vec<String>)> {
        each!(self, r => {
            let recon = r.reconstructor();
            if recon.game().is_some() {
                return None;
            }
            let (rules, raw) = (recon.rules(), recon.sensed());
            let (intended, differ) = rules.nearest_start(raw)?;
            let turned = rules
                .detect_start(&intended)
                .and_then(|s| s.rotated)
                .unwrap_or(false);
            let squares = differ
                .into_iter()
                .map(|sq| if turned { rules.turn_round(sq) } else { sq }.to_string())
                .collect();
            Some((rules.setup_alert(&intended, raw).message, squares))
        })
    }

    /// How many pieces the sensors see on the board.
    pub fn sensed_pieces(&self) -> usize {
        use crate::games::{Placement, SquareSet};
        each!(self, r => SquareSet::count(Placement::occupied(r.reconstructor().sensed())))
    }

    /// Reconstructor counters.
    pub fn recon_stats(&self) -> crate::track::Stats {
        each!(self, r => r.reconstructor().stats())
    }
}
