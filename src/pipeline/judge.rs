//! The clock judge of a board's pipeline: clock readings and presses
//! (a press completes a move, Law 6.2a; a press with no move is an
//! alert), flags judged in the words of the game's rule book (Laws 6.4,
//! 6.9), and the `clock` events, each time under its side's name in the
//! game played. The clock itself ([`crate::clock`]) knows only seats:
//! the first player's is `White`.

use super::*;

/// What a `clock` event says besides the times.
#[derive(Clone, Copy, Debug)]
pub(super) struct ClockFlags {
    pub(super) connected: bool,
    pub(super) battery_low: bool,
    pub(super) estimated: bool,
}

impl BoardPipeline {
    /// The clock's seat of a side: the clock judge ([`ClockTracker`],
    /// [`VirtualClock`]) names the first player's seat `White` and the
    /// second's `Black`, whatever the game calls them.
    pub(super) fn seat(&self, side: Side) -> Side {
        if self.game.id().moves_first(side) {
            Side::White
        } else {
            Side::Black
        }
    }

    /// The game's side in a clock seat ([`Self::seat`]).
    fn side_of_seat(&self, seat: Side) -> Side {
        self.game.id().side(seat == Side::White)
    }

    /// A `clock` event: `times` are the first and second player's
    /// seconds, `running` and `pressed` seats; each goes to the field of
    /// its side's name in the game played.
    pub(super) fn clock_event(
        &self,
        times: [Option<u32>; 2],
        faces: Option<ClockReading>,
        running: Option<Side>,
        pressed: Option<Side>,
        flags: ClockFlags,
    ) -> EventKind {
        let (mut white, mut black, mut red) = (None, None, None);
        for (first, secs) in [(true, times[0]), (false, times[1])] {
            match self.game.id().side(first) {
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

    /// A clock message: presses complete moves (Law 6.2a), flags are judged
    /// (Laws 6.4, 6.9), times are published.
    pub(super) fn handle_clock(&mut self, t: Millis, reading: ClockReading) {
        self.run_clock_to(t);
        let (plies, last_mover) = self.game.last_mover();
        let last_mover = last_mover.map(|s| self.seat(s));
        let update = self
            .clock
            .handle(t, reading, GameView { plies, last_mover });
        if let Some((_, Some(seat))) = update.press {
            self.clock_pressed(t, seat);
        }
        if update.publish {
            let kind = self.clock_event(
                [Side::White, Side::Black].map(|seat| self.clock.seconds(seat)),
                Some(reading),
                reading.running.and_then(|f| self.clock.side_of(f)),
                update.press.and_then(|(_, s)| s),
                ClockFlags {
                    connected: true,
                    battery_low: reading.battery_low,
                    estimated: false,
                },
            );
            self.push(t, kind);
        }
        if let Some(seat) = update.flag {
            self.push(t, EventKind::Alert(self.flag_alert(seat)));
        }
    }

    /// The board says no clock is connected: published once.
    pub(super) fn clock_disconnected(&mut self, t: Millis) {
        if self.clock.handle_disconnected() {
            let kind = self.clock_event(
                [None, None],
                None,
                None,
                None,
                ClockFlags {
                    connected: false,
                    battery_low: false,
                    estimated: false,
                },
            );
            self.push(t, kind);
        }
    }

    /// Adds the time since the last clock reading to the side whose clock
    /// ran, for judging flags.
    pub(super) fn run_clock_to(&mut self, t: Millis) {
        if let (Some(last), Some(face)) = (
            self.last_clock_at,
            self.clock.last().and_then(|r| r.running),
        ) && let Some(side) = self.clock.side_of(face)
        {
            self.elapsed[side as usize] += t.saturating_sub(last);
        }
        self.last_clock_at = Some(t);
    }

    /// The player in `seat` pressed the clock: the move on the board is
    /// complete; a press with no move is an alert (Law 6.2a, xiangqi Art.
    /// 21).
    fn clock_pressed(&mut self, t: Millis, seat: Side) {
        let side = self.side_of_seat(seat);
        let press = self.game.handle_clock_press(t, side);
        self.drain();
        if press == Press::NoMove {
            let article = self.game.article(Article::ClockPress);
            let cited = article
                .as_ref()
                .map(|(_, cite)| format!(" ({cite})"))
                .unwrap_or_default();
            self.push(
                t,
                EventKind::Alert(Alert {
                    kind: AlertKind::ClockPress,
                    side: Some(side),
                    law: article.map(|(n, _)| n.to_owned()),
                    message: format!(
                        "{} pressed the clock with no move on the board{cited}.",
                        side.name()
                    ),
                    cleared: false,
                    evidence: None,
                }),
            );
        }
    }

    /// The alert for the flag of the player in `seat`, in the words of the
    /// game's rule book.
    fn flag_alert(&self, seat: Side) -> Alert {
        let side = self.side_of_seat(seat);
        let (moves_made, cannot_mate) = self.game.flag_facts(side);
        let elapsed = (self.elapsed[seat as usize] / 1000) as u32;
        let article = self.game.article(Article::LostOnTime);
        let book = match self.game.id() {
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
