//! The clock judge of a board's pipeline: clock readings and presses
//! (a press completes a move, Law 6.2a; a press with no move is an
//! alert), flags judged in the words of the game's rule book (Laws 6.4,
//! 6.9), and the `clock` events, each time under its side's name in the
//! game played. The clock itself ([`crate::clock`]) knows only seats:
//! the first player's is `White`.
//!
//! The judge owns the clock's state (the clock as read, the virtual
//! clock run from move times when no clock reports, the time each seat's
//! clock ran); the pipeline hands it the readings and the game's facts,
//! and publishes what it says.

use crate::clock::{
    ClockReading, ClockTracker, FlagBook, GameView, TimeControl, Update, VirtualClock, flag_message,
};
use crate::event::{Alert, AlertKind, EventKind, GameId, Millis, Side};

/// What a `clock` event says besides the times.
#[derive(Clone, Copy, Debug)]
struct ClockFlags {
    connected: bool,
    battery_low: bool,
    estimated: bool,
}

/// A board's clock, as the pipeline judges it.
#[derive(Debug)]
pub(super) struct ClockJudge {
    /// The game played: its sides' names and rule book.
    game: GameId,
    /// The clock as read.
    clock: ClockTracker,
    /// The game's time control (chess only so far).
    time_control: Option<TimeControl>,
    /// Run from move times while no clock reports.
    virtual_clock: Option<VirtualClock>,
    /// Milliseconds each seat's clock has run (White, Black).
    elapsed: [Millis; 2],
    /// When the last clock reading came.
    last_clock_at: Option<Millis>,
}

impl ClockJudge {
    /// The judge of a board playing `game` under `time_control`.
    pub(super) fn new(game: GameId, time_control: Option<TimeControl>) -> ClockJudge {
        ClockJudge {
            game,
            clock: ClockTracker::new(),
            time_control,
            virtual_clock: None,
            elapsed: [0; 2],
            last_clock_at: None,
        }
    }

    /// The clock as last read.
    pub(super) fn tracker(&self) -> &ClockTracker {
        &self.clock
    }

    /// The clock's seat of a side: the clock ([`ClockTracker`],
    /// [`VirtualClock`]) names the first player's seat `White` and the
    /// second's `Black`, whatever the game calls them.
    pub(super) fn seat(&self, side: Side) -> Side {
        if self.game.moves_first(side) {
            Side::White
        } else {
            Side::Black
        }
    }

    /// The game's side in a clock seat ([`Self::seat`]).
    pub(super) fn side_of_seat(&self, seat: Side) -> Side {
        self.game.side(seat == Side::White)
    }

    /// A `clock` event: `times` are the first and second player's
    /// seconds, `running` and `pressed` seats; each goes to the field of
    /// its side's name in the game played.
    fn clock_event(
        &self,
        times: [Option<u32>; 2],
        faces: Option<ClockReading>,
        running: Option<Side>,
        pressed: Option<Side>,
        flags: ClockFlags,
    ) -> EventKind {
        let (mut white, mut black, mut red) = (None, None, None);
        for (first, secs) in [(true, times[0]), (false, times[1])] {
            match self.game.side(first) {
                Side::White => white = secs,
                Side::Black => black = secs,
                Side::Red => red = secs,
            }
        }
        EventKind::Clock {
            white,
            black,
            red,
            left: faces.map(|r| r.left),
            right: faces.map(|r| r.right),
            running: running.map(|s| self.side_of_seat(s)),
            pressed: pressed.map(|s| self.side_of_seat(s)),
            connected: flags.connected,
            battery_low: flags.battery_low,
            estimated: flags.estimated,
        }
    }

    /// A clock message at `t`, the game standing as `view` says: the
    /// clock's time runs on, and the reading says what happened (a press,
    /// a flag, times to publish).
    pub(super) fn read(&mut self, t: Millis, reading: ClockReading, view: GameView) -> Update {
        self.run_to(t);
        self.clock.handle(t, reading, view)
    }

    /// The `clock` event of `reading`, as judged by [`Self::read`]
    /// (`update`), when it is to be published.
    pub(super) fn reading_event(
        &self,
        reading: ClockReading,
        update: &Update,
    ) -> Option<EventKind> {
        update.publish.then(|| {
            self.clock_event(
                [Side::White, Side::Black].map(|seat| self.clock.seconds(seat)),
                Some(reading),
                reading.running.and_then(|f| self.clock.side_of(f)),
                update.press.and_then(|(_, s)| s),
                ClockFlags {
                    connected: true,
                    battery_low: reading.battery_low,
                    estimated: false,
                },
            )
        })
    }

    /// The board says no clock is connected: the event, once.
    pub(super) fn disconnected(&mut self) -> Option<EventKind> {
        self.clock.handle_disconnected().then(|| {
            self.clock_event(
                [None, None],
                None,
                None,
                None,
                ClockFlags {
                    connected: false,
                    battery_low: false,
                    estimated: false,
                },
            )
        })
    }

    /// Adds the time since the last clock reading to the seat whose clock
    /// ran, for judging flags.
    fn run_to(&mut self, t: Millis) {
        if let (Some(last), Some(face)) = (
            self.last_clock_at,
            self.clock.last().and_then(|r| r.running),
        ) && let Some(side) = self.clock.side_of(face)
        {
            self.elapsed[side as usize] += t.saturating_sub(last);
        }
        self.last_clock_at = Some(t);
    }

    /// A game starts at `t`: the clock's memory of the last one goes, and
    /// a virtual clock starts when the game has a time control.
    pub(super) fn new_game(&mut self, t: Millis) {
        self.clock.new_game();
        self.elapsed = [0; 2];
        self.virtual_clock = self.time_control.clone().map(VirtualClock::new);
        if let Some(v) = &mut self.virtual_clock {
            v.start(t);
        }
    }

    /// `side` moved at `t`: without a clock reporting, the virtual clock's
    /// estimated `clock` event.
    pub(super) fn moved(&mut self, t: Millis, side: Side) -> Option<EventKind> {
        let seat = self.seat(side);
        let v = self.virtual_clock.as_mut()?;
        if self.clock.connected() == Some(true) {
            return None;
        }
        v.handle_move(t, seat);
        let times = [v.seconds(Side::White), v.seconds(Side::Black)].map(Some);
        Some(self.clock_event(
            times,
            None,
            Some(seat.other()),
            Some(seat),
            ClockFlags {
                connected: false,
                battery_low: false,
                estimated: true,
            },
        ))
    }

    /// The alert for the flag of the player in `seat`, in the words of the
    /// game's rule book: `moves_made` and `cannot_mate` are the game's
    /// facts about that side, `article` the rule book's article on a loss
    /// on time (its number and citation).
    pub(super) fn flag_alert(
        &self,
        seat: Side,
        (moves_made, cannot_mate): (u32, bool),
        article: Option<(&'static str, String)>,
    ) -> Alert {
        let side = self.side_of_seat(seat);
        let elapsed = (self.elapsed[seat as usize] / 1000) as u32;
        let book = match self.game {
            GameId::Chess => FlagBook::fide(side),
            game => FlagBook {
                loss: article
                    .as_ref()
                    .map(|(_, cite)| cite.clone())
                    .unwrap_or_default(),
                period: None,
                opponent: game.side(!game.moves_first(side)),
            },
        };
        Alert {
            kind: AlertKind::Flag,
            side: Some(side),
            law: article.map(|(n, _)| n.to_owned()),
            message: flag_message(
                side,
                self.time_control.as_ref(),
                moves_made,
                elapsed,
                cannot_mate,
                book,
            ),
            cleared: false,
            evidence: None,
        }
    }
}
