//! Chess clocks: time controls, the clock a DGT board reports, presses and
//! flags (Laws 6.2-6.4, 6.9). Pure: readings and times are passed in.
//!
//! A DGT clock reports its two faces as *left* and *right*, seen from the
//! front: physical sides, not colours, and the board may stand turned round.
//! [`ClockTracker`] learns which face is White's from what happens: the face
//! running when a game starts is White's (Law 6.6: the arbiter starts
//! White's clock), and the face that stops right after a move belongs to
//! the side that moved. Until it knows, it reports faces, not colours.

use crate::event::{Millis, Side};

/// How time is added per move (Law 6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Increment {
    /// No time added.
    #[default]
    None,
    /// Fischer (cumulative): the increment is added after every move.
    Fischer(u32),
    /// Bronstein: the time used, up to the increment, is given back.
    Bronstein(u32),
    /// Delay: the clock waits this long before counting down.
    Delay(u32),
}

impl Increment {
    fn seconds(self) -> u32 {
        match self {
            Increment::None => 0,
            Increment::Fischer(s) | Increment::Bronstein(s) | Increment::Delay(s) => s,
        }
    }
}

/// One period of a time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// Moves to make in the period (`None`: the rest of the game).
    pub moves: Option<u32>,
    /// Time of the period in seconds.
    pub seconds: u32,
}

/// A time control: periods and the per-move increment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Periods in order; the last one usually covers the rest of the game.
    pub periods: Vec<Period>,
    /// Time added per move.
    pub increment: Increment,
}

/// Why a time control string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("time control `{text}`: {reason}")]
pub struct TimeControlError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

impl TimeControl {
    /// Parses the PGN `TimeControl` form with an optional mode:
    /// `40/5400:1800+30` (40 moves in 90 minutes, then 30 minutes, 30 s
    /// Fischer increment), `5400+30`, `300`; append ` bronstein` or
    /// ` delay` for those modes.
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        let err = |reason: &str| TimeControlError {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let mut words = text.split_whitespace();
        let spec = words.next().ok_or_else(|| err("empty"))?;
        let mode = words.next().unwrap_or("fischer");
        if words.next().is_some() {
            return Err(err("expected `PERIODS[+INC] [fischer|bronstein|delay]`"));
        }
        let mut periods = Vec::new();
        let mut increment = 0;
        for part in spec.split(':') {
            let (main, inc) = match part.split_once('+') {
                Some((m, i)) => (m, Some(i)),
                None => (part, None),
            };
            if let Some(i) = inc {
                increment = i.parse().map_err(|_| err("bad increment"))?;
            }
            let period = match main.split_once('/') {
                Some((moves, secs)) => Period {
                    moves: Some(moves.parse().map_err(|_| err("bad move count"))?),
                    seconds: secs.parse().map_err(|_| err("bad seconds"))?,
                },
                None => Period {
                    moves: None,
                    seconds: main.parse().map_err(|_| err("bad seconds"))?,
                },
            };
            periods.push(period);
        }
        let increment = match (mode, increment) {
            (_, 0) => Increment::None,
            ("fischer", s) => Increment::Fischer(s),
            ("bronstein", s) => Increment::Bronstein(s),
            ("delay", s) => Increment::Delay(s),
            _ => return Err(err("mode must be fischer, bronstein or delay")),
        };
        Ok(TimeControl { periods, increment })
    }

    /// The increment in seconds (whatever the mode).
    pub fn increment_seconds(&self) -> u32 {
        self.increment.seconds()
    }

    /// Seconds a player has at the start.
    pub fn initial_seconds(&self) -> u32 {
        self.periods.first().map_or(0, |p| p.seconds)
    }

    /// The period a player is in after `moves_made` moves (0-based), and
    /// the move count that ends it (`None` for the last period).
    pub fn period_after(&self, moves_made: u32) -> (usize, Option<u32>) {
        let mut end = 0;
        for (i, p) in self.periods.iter().enumerate() {
            match p.moves {
                Some(m) => {
                    end += m;
                    if moves_made < end {
                        return (i, Some(end));
                    }
                }
                None => return (i, None),
            }
        }
        (self.periods.len().saturating_sub(1), None)
    }

    /// Time the clock adds when the move numbered `moves_made` (1-based)
    /// completes: the increment, plus the next period's time when that move
    /// ends a period.
    pub fn added_after(&self, moves_made: u32) -> u32 {
        let mut end = 0;
        let mut bonus = 0;
        for (i, p) in self.periods.iter().enumerate() {
            if let Some(m) = p.moves {
                end += m;
                if moves_made == end {
                    bonus = self.periods.get(i + 1).map_or(0, |n| n.seconds);
                }
            }
        }
        match self.increment {
            Increment::Fischer(s) => bonus + s,
            _ => bonus,
        }
    }
}

/// A physical clock face (the neutral reading's).
pub use boardcast_protocols::reading::Face;

/// One reading of a clock, as the board reports it (the neutral reading
/// every family's codec makes).
pub use boardcast_protocols::reading::ClockReading;

/// What the game around the clock looks like, for the tracker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameView {
    /// Plies published (and pending) so far.
    pub plies: usize,
    /// The side that made the last ply, if any (a pending move counts).
    pub last_mover: Option<Side>,
}

/// What a clock reading means.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Update {
    /// The face that was pressed (its clock stopped, the other started),
    /// with the side it belongs to when known.
    pub press: Option<(Face, Option<Side>)>,
    /// A flag fell on this side (first time only).
    pub flag: Option<Side>,
    /// Worth publishing as a `clock` event.
    pub publish: bool,
}

/// Follows one board's clock through a game.
#[derive(Clone, Debug, Default)]
pub struct ClockTracker {
    white_face: Option<Face>,
    last: Option<ClockReading>,
    last_published: Option<Millis>,
    flagged: [bool; 2],
    connected: Option<bool>,
}

/// How often a running clock is republished without a press.
const REPUBLISH_MS: Millis = 10_000;

impl ClockTracker {
    /// A tracker that knows nothing yet.
    pub fn new() -> ClockTracker {
        ClockTracker::default()
    }

    /// A new game began: forget which face is whose.
    pub fn new_game(&mut self) {
        self.white_face = None;
        self.flagged = [false; 2];
        if let Some(last) = self.last
            && let Some(face) = last.running
        {
            // Law 6.6: White's clock is the one started at the beginning.
            self.white_face = Some(face);
        }
    }

    /// The face that is White's, once known.
    pub fn white_face(&self) -> Option<Face> {
        self.white_face
    }

    /// The side a face belongs to, once known.
    pub fn side_of(&self, face: Face) -> Option<Side> {
        self.white_face
            .map(|w| if w == face { Side::White } else { Side::Black })
    }

    /// The face of a side, once known.
    pub fn face_of(&self, side: Side) -> Option<Face> {
        self.white_face
            .map(|w| if side == Side::White { w } else { w.other() })
    }

    /// The latest reading.
    pub fn last(&self) -> Option<ClockReading> {
        self.last
    }

    /// Seconds left for a side, once known.
    pub fn seconds(&self, side: Side) -> Option<u32> {
        Some(self.last?.on(self.face_of(side)?))
    }

    /// Whether a clock is connected (`None`: not heard of yet).
    pub fn connected(&self) -> Option<bool> {
        self.connected
    }

    /// The board says no clock is connected. Returns whether that is news.
    pub fn handle_disconnected(&mut self) -> bool {
        let news = self.connected != Some(false);
        self.connected = Some(false);
        news
    }

    /// A clock reading at `at`.
    pub fn handle(&mut self, at: Millis, r: ClockReading, game: GameView) -> Update {
        let mut update = Update::default();
        let previous = self.last.replace(r);
        if self.connected != Some(true) {
            self.connected = Some(true);
            update.publish = true;
        }
        if self.white_face.is_none()
            && game.plies == 0
            && previous.is_some()
            && let Some(face) = r.running
        {
            self.white_face = Some(face);
        }
        if let Some(prev) = previous
            && let Some(was) = prev.running
            && r.running == Some(was.other())
        {
            // Law 6.2a: the player whose clock stopped pressed it.
            if self.white_face.is_none()
                && let Some(mover) = game.last_mover
            {
                self.white_face = Some(if mover == Side::White {
                    was
                } else {
                    was.other()
                });
            }
            update.press = Some((was, self.side_of(was)));
            update.publish = true;
        }
        if previous.is_none_or(|p| p.running != r.running || p.battery_low != r.battery_low) {
            update.publish = true;
        }
        if let Some(face) = r.flag
            && let Some(side) = self.side_of(face)
            && !self.flagged[side as usize]
        {
            self.flagged[side as usize] = true;
            update.flag = Some(side);
            update.publish = true;
        }
        if self
            .last_published
            .is_none_or(|t| at.saturating_sub(t) >= REPUBLISH_MS)
        {
            update.publish = true;
        }
        if update.publish {
            self.last_published = Some(at);
        }
        update
    }
}

/// "1:23:45" for a number of seconds (the `%clk` and `WhiteClock` form).
pub fn hms(seconds: u32) -> String {
    format!(
        "{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// A clock run from move times when no physical clock reports (marked as
/// estimated wherever it is shown).
#[derive(Clone, Debug)]
pub struct VirtualClock {
    tc: TimeControl,
    left: [u32; 2],
    moves: [u32; 2],
    turn_started: Option<Millis>,
}

impl VirtualClock {
    /// Both players at the time control's initial time.
    pub fn new(tc: TimeControl) -> VirtualClock {
        let initial = tc.initial_seconds();
        VirtualClock {
            tc,
            left: [initial; 2],
            moves: [0; 2],
            turn_started: None,
        }
    }

    /// The game started (White's clock starts) at `at`.
    pub fn start(&mut self, at: Millis) {
        self.turn_started = Some(at);
    }

    /// `side` completed a move at `at`; returns its remaining seconds and
    /// the seconds the move took.
    pub fn handle_move(&mut self, at: Millis, side: Side) -> (u32, u32) {
        let i = side as usize;
        let used = self
            .turn_started
            .map_or(0, |t| (at.saturating_sub(t) / 1000) as u32);
        self.moves[i] += 1;
        let charged = match self.tc.increment {
            Increment::Delay(d) => used.saturating_sub(d),
            Increment::Bronstein(b) => used.saturating_sub(used.min(b)),
            _ => used,
        };
        self.left[i] = self.left[i].saturating_sub(charged) + self.tc.added_after(self.moves[i]);
        self.turn_started = Some(at);
        (self.left[i], used)
    }

    /// Seconds left for a side.
    pub fn seconds(&self, side: Side) -> u32 {
        self.left[side as usize]
    }

    /// The increment in seconds, for messages.
    pub fn increment(&self) -> u32 {
        self.tc.increment.seconds()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_in_pgn_form() {
        let tc = TimeControl::parse("40/5400:1800+30").unwrap();
        assert_eq!(
            tc.periods,
            [
                Period {
                    moves: Some(40),
                    seconds: 5400
                },
                Period {
                    moves: None,
                    seconds: 1800
                }
            ]
        );
        assert_eq!(tc.increment, Increment::Fischer(30));
        assert_eq!(tc.period_after(39), (0, Some(40)));
        assert_eq!(tc.period_after(40), (1, None));
        assert_eq!(tc.added_after(40), 1830);
        assert_eq!(tc.added_after(12), 30);
        assert_eq!(
            TimeControl::parse("300+5 delay").unwrap().increment,
            Increment::Delay(5)
        );
        assert!(TimeControl::parse("40/x").is_err());
    }

    fn reading(left: u32, right: u32, running: Option<Face>) -> ClockReading {
        ClockReading {
            left,
            right,
            running,
            flag: None,
            battery_low: false,
        }
    }

    #[test]
    fn the_face_running_at_the_start_is_whites_and_presses_are_attributed() {
        let mut t = ClockTracker::new();
        let start = GameView {
            plies: 0,
            last_mover: None,
        };
        t.handle(0, reading(600, 600, None), start);
        t.handle(1000, reading(600, 599, Some(Face::Right)), start);
        assert_eq!(t.white_face(), Some(Face::Right));
        let u = t.handle(
            5000,
            reading(600, 595, Some(Face::Left)),
            GameView {
                plies: 1,
                last_mover: Some(Side::White),
            },
        );
        assert_eq!(u.press, Some((Face::Right, Some(Side::White))));
        assert_eq!(t.seconds(Side::Black), Some(600));
    }

    #[test]
    fn without_a_start_the_first_press_after_a_move_teaches_the_faces() {
        let mut t = ClockTracker::new();
        let view = GameView {
            plies: 7,
            last_mover: Some(Side::White),
        };
        t.handle(0, reading(300, 200, Some(Face::Left)), view);
        let u = t.handle(900, reading(299, 200, Some(Face::Right)), view);
        assert_eq!(u.press, Some((Face::Left, Some(Side::White))));
        assert_eq!(t.face_of(Side::Black), Some(Face::Right));
    }

    #[test]
    fn a_virtual_clock_charges_move_times_and_adds_increments() {
        let mut v = VirtualClock::new(TimeControl::parse("2/100:60+10").unwrap());
        v.start(0);
        assert_eq!(v.handle_move(30_000, Side::White), (80, 30));
        assert_eq!(v.handle_move(35_000, Side::Black), (105, 5));
        // White's second move ends the period: 60 s more, plus the increment.
        assert_eq!(v.handle_move(45_000, Side::White), (140, 10));
        assert_eq!(hms(3725), "1:02:05");
    }
}

/// What a game's rule book cites when a flag falls, for
/// [`flag_message`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagBook {
    /// The citation of the loss on time (`Law 6.9`, `art. 1.30`, `Art. 16`).
    pub loss: String,
    /// The citation of a period's required moves (`Law 6.4`), if the book
    /// has one.
    pub period: Option<String>,
    /// The opponent of the flagged side (the game's name for it).
    pub opponent: Side,
}

impl FlagBook {
    /// The FIDE Laws (6.4, 6.9).
    pub fn fide(side: Side) -> FlagBook {
        FlagBook {
            loss: "Law 6.9".into(),
            period: Some("Law 6.4".into()),
            opponent: side.other(),
        }
    }
}

/// The arbiter's view of a fallen flag, as the game's rule book (`book`)
/// words it (chess: Laws 6.4 and 6.9).
///
/// `moves_made` is the number of moves the flagged side has completed on
/// the board; `elapsed` the seconds its clock has run; `opponent_cannot_mate`
/// whether the opponent has no way to checkmate by any legal sequence (a
/// chess rule: always `false` in the other games).
pub fn flag_message(
    side: Side,
    tc: Option<&TimeControl>,
    moves_made: u32,
    elapsed: u32,
    opponent_cannot_mate: bool,
    book: FlagBook,
) -> String {
    let who = side.name();
    let other = book.opponent.name();
    let loss = &book.loss;
    let period_cite = book
        .period
        .as_ref()
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    let verdict = if opponent_cannot_mate {
        format!("the game is drawn, as {other} cannot checkmate by any legal sequence ({loss})")
    } else {
        format!("{who} loses on time ({loss})")
    };
    let Some(tc) = tc else {
        return format!(
            "{who}'s flag fell after {moves_made} moves. The time control is not configured, so the arbiter must check whether the required moves were made{period_cite}; if not, {verdict}."
        );
    };
    // The period the flag fell in, by the time the clock has run: each
    // period grants its time, each move its increment.
    let mut granted = 0u64;
    let mut end_moves = 0u32;
    let mut period = tc.periods.len() - 1;
    for (i, p) in tc.periods.iter().enumerate() {
        granted += u64::from(p.seconds);
        if let Some(m) = p.moves {
            end_moves += m;
            let with_increments =
                granted + u64::from(end_moves) * u64::from(tc.increment.seconds());
            if u64::from(elapsed) <= with_increments {
                period = i;
                break;
            }
        } else {
            period = i;
            break;
        }
    }
    let required = tc.periods[period].moves.map(|_| end_moves);
    match required {
        Some(req) if moves_made >= req => format!(
            "{who}'s flag fell in period {} after {who} had completed the {req} moves it requires ({moves_made} played): no loss; the clock did not add the next period's time and must be corrected{period_cite}.",
            period + 1
        ),
        Some(req) => format!(
            "{who}'s flag fell in period {} with {moves_made} of the {req} moves required: {verdict}.",
            period + 1
        ),
        None => {
            format!("{who}'s flag fell in the last period, after {moves_made} moves: {verdict}.")
        }
    }
}

#[cfg(test)]
mod flag_tests {
    use super::*;
    use FlagBook as Book;

    fn fide(side: Side) -> Book {
        Book::fide(side)
    }

    #[test]
    fn another_rule_book_cites_its_own_article_and_names_its_own_sides() {
        let tc = TimeControl::parse("300+5").unwrap();
        let book = Book {
            loss: "Art. 16".into(),
            period: None,
            opponent: Side::Black,
        };
        assert_eq!(
            flag_message(Side::Red, Some(&tc), 31, 455, false, book.clone()),
            "Red's flag fell in the last period, after 31 moves: Red loses on time (Art. 16)."
        );
        assert_eq!(
            flag_message(Side::Red, None, 31, 455, false, book),
            "Red's flag fell after 31 moves. The time control is not configured, so the arbiter must check whether the required moves were made; if not, Red loses on time (Art. 16)."
        );
    }

    #[test]
    fn a_flag_before_the_required_moves_loses_unless_the_opponent_cannot_mate() {
        let tc = TimeControl::parse("40/5400:1800+30").unwrap();
        let m = flag_message(
            Side::White,
            Some(&tc),
            38,
            5400 + 38 * 30,
            false,
            fide(Side::White),
        );
        assert_eq!(
            m,
            "White's flag fell in period 1 with 38 of the 40 moves required: White loses on time (Law 6.9)."
        );
        let m = flag_message(
            Side::White,
            Some(&tc),
            38,
            5400 + 38 * 30,
            true,
            fide(Side::White),
        );
        assert!(m.ends_with(
            "the game is drawn, as Black cannot checkmate by any legal sequence (Law 6.9)."
        ));
    }

    #[test]
    fn a_flag_after_the_required_moves_is_no_loss() {
        let tc = TimeControl::parse("40/5400:1800+30").unwrap();
        let m = flag_message(
            Side::Black,
            Some(&tc),
            40,
            5400 + 40 * 30,
            false,
            fide(Side::Black),
        );
        assert!(
            m.starts_with("Black's flag fell in period 1 after Black had completed the 40 moves")
        );
        let m = flag_message(
            Side::Black,
            Some(&tc),
            52,
            7200 + 52 * 30,
            false,
            fide(Side::Black),
        );
        assert_eq!(
            m,
            "Black's flag fell in the last period, after 52 moves: Black loses on time (Law 6.9)."
        );
    }
}
