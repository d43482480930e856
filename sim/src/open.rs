//! Simulated open-protocol boards for draughts and xiangqi: a game played
//! by hands on a board that reports what its sensors see (`hello`, a
//! `board` line, then `up`/`down` per square change), written as a capture.
//!
//! Design: written from how people handle pieces, not from what the
//! tracker expects. The clean profile lifts and sets down each piece once
//! (captured pieces removed after the move, a crown stacked). The human
//! profile adds the habits of club play: captured pieces removed before,
//! during or after the jumping piece travels, one at a time or swept
//! together; a multi-jump set down on each landing square or carried over
//! them; a xiangqi capture with the victim lifted first or the mover lifted
//! first; sliders set down on squares on their way; crowning by turning the
//! man over; pieces knocked and set back a moment later; lines split across
//! capture chunks.

use boardcast_protocols::reading::{Geometry, Square};
use boardcast_rules::{draughts, xiangqi};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use boardcast::event::Millis;

/// The game a simulated board plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenGame {
    /// English draughts on 8x8.
    Draughts,
    /// Xiangqi on 9x10.
    Xiangqi,
}

impl OpenGame {
    /// The name in `hello` lines.
    pub fn name(self) -> &'static str {
        match self {
            OpenGame::Draughts => "draughts",
            OpenGame::Xiangqi => "xiangqi",
        }
    }

    /// The open protocol's name for the game (square names, letters).
    pub fn protocol(self) -> boardcast_protocols::open::Game {
        match self {
            OpenGame::Draughts => boardcast_protocols::open::Game::Draughts,
            OpenGame::Xiangqi => boardcast_protocols::open::Game::Xiangqi,
        }
    }

    fn geometry(self) -> Geometry {
        match self {
            OpenGame::Draughts => Geometry::CHESS,
            OpenGame::Xiangqi => Geometry::XIANGQI,
        }
    }

    /// The snapshot index of a square (game coordinates).
    pub(super) fn index_of(self, sq: Square) -> usize {
        self.geometry().index(sq).expect("on the board")
    }

    fn first_rank(self) -> u8 {
        match self {
            OpenGame::Draughts => 1,
            OpenGame::Xiangqi => 0,
        }
    }
}

/// How the simulated players handle the pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenProfile {
    /// Human habits (else clean handling).
    pub human: bool,
    /// Whether the board identifies pieces (`pieces=yes`).
    pub pieces: bool,
    /// The board stands turned round.
    pub rotated: bool,
    /// With `human`, the habits of the real recordings too (see
    /// [`crate::Real`]): a piece set down on another square it could go to
    /// on its way (about one move in twenty-five, for a third of a second
    /// with a tail of up to two seconds); a captured piece set down beside
    /// for a moment before it leaves the board; a xiangqi chariot or cannon
    /// set down short of its victim, the victim lifted, then the capture.
    pub real: bool,
}

/// A simulated session: the board's lines with their times.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenSession {
    /// `(t_ms, line without its line end)`.
    pub lines: Vec<(Millis, String)>,
    /// When each ply was completed (its last `down`), for a clock beside
    /// the board ([`crate::clock::add_open_clock`]); empty for sessions
    /// with takebacks or faults.
    pub plies: Vec<Millis>,
}

/// The players' hands at a simulated board: what stands where, the time,
/// and the lines the board has sent.
pub(super) struct Hands {
    game: OpenGame,
    pub(super) profile: OpenProfile,
    pub(super) rng: SmallRng,
    t: Millis,
    lines: Vec<(Millis, String)>,
    /// When each ply was completed.
    plies: Vec<Millis>,
    /// What stands on each square (game coordinates, snapshot order).
    cells: Vec<Option<char>>,
    /// No knocks (while a fault is being staged).
    pub(super) quiet: bool,
    /// Habits beyond the profile's.
    habits: Habits,
    /// What the mover left for the opponent, done at the opponent's turn.
    deferred: Vec<Deferred>,
    /// The next move comes at once (the first mover, waiting for a pushed
    /// piece to be set back, moves as soon as it is).
    hurry: bool,
}

/// Habits a profile does not draw (so that sessions simulated without them
/// stay as they were), each the profile of one habit the real games showed
/// (issue 44).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Habits {
    /// Draughts: how often a capture's men, and a crowning, are left for
    /// the opponent: the captured men cleared and the man crowned by the
    /// opponent at the start of their turn, as the rule book's note on
    /// crowning (the opponent crowns) and many clubs do.
    pub left_for_opponent: f64,
    /// How often, before the game's first move, a piece is knocked onto a
    /// square one of its first moves goes to, stands there 1 to 4 s, and
    /// is set back; the real first move follows.
    pub first_move_knock: f64,
    /// How often, before the game's first move, a piece of the side that
    /// moves second is pushed forward onto the square the mirror of a
    /// first move reaches (turned round, the board then reads as that
    /// first move), stands there 1 to 4 s, and is set back; the real
    /// first move follows, half the time at once (0.15 to 1.5 s after the
    /// piece is back; a sleeve or a knock while the players sit down,
    /// issue 60).
    pub second_mover_knock: f64,
    /// Xiangqi: how often a chariot's or cannon's capture along a line is
    /// made victim first, the piece then slid to the victim's point
    /// touching every empty point on its way for a moment each (a horse:
    /// its leg's point); on a board that senses occupancy only, the last
    /// point touched is not the landing.
    pub capture_slide: f64,
}

/// Something left for the opponent to do.
#[derive(Clone, Copy, Debug)]
enum Deferred {
    /// Lift a captured man.
    Clear(Square),
    /// Crown the man standing here with this letter.
    Crown(Square, char),
}

impl Hands {
    pub(super) fn new(
        game: OpenGame,
        profile: OpenProfile,
        seed: u64,
        cells: Vec<Option<char>>,
    ) -> Hands {
        Hands {
            game,
            profile,
            rng: SmallRng::seed_from_u64(seed),
            t: 0,
            lines: Vec::new(),
            plies: Vec::new(),
            cells,
            quiet: false,
            habits: Habits::default(),
            deferred: Vec::new(),
            hurry: false,
        }
    }

    /// What stands on each square (game coordinates, snapshot order).
    pub(super) fn cells_snapshot(&self) -> Vec<Option<char>> {
        self.cells.clone()
    }

    pub(super) fn wait(&mut self, lo: Millis, hi: Millis) {
        self.t += self.rng.gen_range(lo..=hi);
    }

    /// Whether a real habit of probability `p` happens now.
    fn real_habit(&mut self, p: f64) -> bool {
        self.profile.human && self.profile.real && !self.quiet && self.rng.gen_bool(p)
    }

    /// A stop on the way, as the real recordings time it: about a third of
    /// a second, one in ten up to two seconds.
    fn stop_on_the_way(&mut self) {
        if self.rng.gen_bool(0.1) {
            self.wait(600, 2_000);
        } else {
            self.wait(150, 600);
        }
    }

    /// Whether `sq` is on the board and empty.
    fn empty(&self, file: i16, rank: i16) -> Option<Square> {
        let g = self.game.geometry();
        if file < 0 || rank < 0 || file >= i16::from(g.files()) || rank >= i16::from(g.ranks()) {
            return None;
        }
        let sq = Square::new(file as u8, rank as u8);
        self.cells[self.index(sq)].is_none().then_some(sq)
    }

    /// Lifts the captured piece on `sq` off the board; with the real
    /// habit, set down for a moment on an empty square beside it first
    /// (`diagonal`: only diagonal neighbours, the dark squares of a
    /// draughts board).
    fn take_off(&mut self, sq: Square, diagonal: bool) {
        let piece = self.cells[self.index(sq)];
        if let Some(piece) = piece
            && self.real_habit(5.0 / 36.0)
        {
            let (f, r) = (i16::from(sq.file), i16::from(sq.rank));
            let steps: &[(i16, i16)] = if diagonal {
                &[(1, 1), (1, -1), (-1, 1), (-1, -1)]
            } else {
                &[(1, 0), (-1, 0), (0, 1), (0, -1)]
            };
            let beside: Vec<Square> = steps
                .iter()
                .filter_map(|(df, dr)| self.empty(f + df, r + dr))
                .collect();
            if !beside.is_empty() {
                let to = beside[self.rng.gen_range(0..beside.len())];
                self.up(sq);
                self.wait(100, 300);
                self.down(to, piece);
                self.wait(300, 1_500);
                self.up(to);
                return;
            }
        }
        self.up(sq);
    }

    fn phys(&self, sq: Square) -> Square {
        if self.profile.rotated {
            self.game.geometry().rotated(sq)
        } else {
            sq
        }
    }

    fn index(&self, sq: Square) -> usize {
        self.game.geometry().index(sq).expect("on the board")
    }

    fn say(&mut self, line: String) {
        self.lines.push((self.t, line));
    }

    pub(super) fn up(&mut self, sq: Square) {
        let i = self.index(sq);
        self.cells[i] = None;
        let name = self.phys(sq).name(self.game.first_rank());
        self.say(format!("up {name}"));
    }

    pub(super) fn down(&mut self, sq: Square, piece: char) {
        let i = self.index(sq);
        self.cells[i] = Some(piece);
        let name = self.phys(sq).name(self.game.first_rank());
        if self.profile.pieces {
            self.say(format!("down {name} {piece}"));
        } else {
            self.say(format!("down {name}"));
        }
    }

    pub(super) fn hello(&mut self) {
        let g = self.game.geometry();
        let pieces = if self.profile.pieces { "yes" } else { "no" };
        self.say(format!(
            "hello {} {}x{} id=SIM-1 pieces={pieces} name=boardcast-sim",
            self.game.name(),
            g.files(),
            g.ranks()
        ));
        let mut cells = String::new();
        for i in 0..g.len() {
            let game_sq = if self.profile.rotated {
                g.rotated(g.square(i).expect("in range"))
            } else {
                g.square(i).expect("in range")
            };
            cells.push(match self.cells[self.index(game_sq)] {
                None => '.',
                Some(_) if !self.profile.pieces => 'o',
                Some(c) => c,
            });
        }
        self.wait(5, 30);
        self.say(format!("board {cells}"));
    }

    /// A piece other than those of the move knocked and set back.
    pub(super) fn maybe_knock(&mut self, avoid: &[Square]) {
        if !self.profile.human || self.quiet || !self.rng.gen_bool(0.08) {
            return;
        }
        let g = self.game.geometry();
        let occupied: Vec<Square> = (0..g.len())
            .filter(|&i| self.cells[i].is_some())
            .filter_map(|i| g.square(i))
            .filter(|s| !avoid.contains(s))
            .collect();
        if occupied.is_empty() {
            return;
        }
        let sq = occupied[self.rng.gen_range(0..occupied.len())];
        let piece = self.cells[self.index(sq)].expect("occupied");
        self.wait(100, 400);
        self.up(sq);
        self.wait(300, 2500);
        self.down(sq, piece);
    }

    /// A moment later, the piece on `from` moved onto `to`, standing there
    /// 1 to 4 s, then set back.
    fn stand_and_set_back(&mut self, from: Square, to: Square) {
        let piece = self.cells[self.index(from)].expect("a piece to move");
        self.wait(500, 2_000);
        self.up(from);
        self.wait(60, 200);
        self.down(to, piece);
        self.wait(1_000, 4_000);
        self.up(to);
        self.wait(100, 300);
        self.down(from, piece);
    }

    /// With [`Habits::first_move_knock`], before the first move: a piece
    /// knocked from one of `firsts` (the squares of the first moves onto
    /// empty squares) onto its other square, standing there 1 to 4 s,
    /// then set back.
    fn maybe_knock_before_first_move(&mut self, firsts: &[(Square, Square)]) {
        let p = self.habits.first_move_knock;
        if p <= 0.0 || firsts.is_empty() || !self.rng.gen_bool(p) {
            return;
        }
        let (from, to) = firsts[self.rng.gen_range(0..firsts.len())];
        self.stand_and_set_back(from, to);
    }

    /// With [`Habits::second_mover_knock`], before the first move: a piece
    /// of the side that moves second pushed along the mirror of one of
    /// `firsts` (the start position turned round is the same position with
    /// the sides swapped), standing there 1 to 4 s, then set back.
    fn maybe_push_second_mover(&mut self, firsts: &[(Square, Square)]) {
        let p = self.habits.second_mover_knock;
        if p <= 0.0 || firsts.is_empty() || !self.rng.gen_bool(p) {
            return;
        }
        let g = self.game.geometry();
        let mirror = |s: Square| Square::new(g.files() - 1 - s.file, g.ranks() - 1 - s.rank);
        let (from, to) = firsts[self.rng.gen_range(0..firsts.len())];
        let (from, to) = (mirror(from), mirror(to));
        debug_assert!(self.cells[self.index(to)].is_none(), "a free square");
        self.stand_and_set_back(from, to);
        self.hurry = self.rng.gen_bool(0.5);
    }

    pub(super) fn think(&mut self) {
        if std::mem::take(&mut self.hurry) {
            self.wait(150, 1_500);
        } else if self.profile.human {
            self.wait(1500, 9000);
        } else {
            self.wait(1000, 3000);
        }
    }

    /// The last ply was completed by the last line sent.
    pub(super) fn ply_done(&mut self) {
        let at = self.lines.last().map_or(self.t, |(t, _)| *t);
        self.plies.push(at);
    }

    /// The session so far.
    pub(super) fn session(self) -> OpenSession {
        OpenSession {
            lines: self.lines,
            plies: self.plies,
        }
    }
}

pub(super) fn dsq(s: draughts::Square) -> Square {
    Square::new(s.file(), s.rank())
}

pub(super) fn xsq(s: xiangqi::Square) -> Square {
    Square::new(s.file() as u8, s.rank() as u8)
}

/// The hands at a draughts board in the start position, the board
/// introduced (`hello` and a `board` line).
pub(super) fn draughts_hands(profile: OpenProfile, seed: u64, start: &draughts::Position) -> Hands {
    let g = Geometry::CHESS;
    let cells = (0..g.len())
        .map(|i| {
            let sq = g.square(i).expect("in range");
            draughts::Square::from_file_rank(sq.file, sq.rank)
                .and_then(|s| start.piece_at(s))
                .map(boardcast::games::draughts::letter)
        })
        .collect();
    Hands::new(OpenGame::Draughts, profile, seed, cells)
}

/// Plays one draughts move (legal in `pos`) with the hands, then perhaps a
/// knock.
pub(super) fn play_draughts(h: &mut Hands, pos: &draughts::Position, mv: &draughts::Move) {
    do_deferred(h);
    let profile = h.profile;
    let piece = pos.piece_at(mv.from()).expect("a piece to move");
    let man = boardcast::games::draughts::letter(piece);
    let path: Vec<Square> = mv.path().iter().map(|&s| dsq(s)).collect();
    let captured: Vec<Square> = mv.captured().iter().map(|&s| dsq(s)).collect();
    // When the captured pieces leave: 0 before, 1 during, 2 after.
    let when = if profile.human && !captured.is_empty() {
        h.rng.gen_range(0..3)
    } else {
        2
    };
    let swept = profile.human && h.rng.gen_bool(0.5);
    let remove = |h: &mut Hands, list: &[Square], swept: bool| {
        for &c in list {
            if swept {
                h.wait(20, 60);
            } else {
                h.wait(250, 700);
            }
            h.take_off(c, true);
        }
    };
    if when == 0 {
        remove(h, &captured, swept);
        h.wait(200, 600);
    }
    h.up(path[0]);
    // A simple move first set down on the other square the man could step
    // to (a real stop on the way), then on its own.
    if captured.is_empty() && path.len() == 2 && h.real_habit(10.0 / 193.0) {
        let (from, to) = (path[0], path[1]);
        let other = h.empty(
            2 * i16::from(from.file) - i16::from(to.file),
            i16::from(to.rank),
        );
        if let Some(other) = other {
            h.wait(150, 450);
            h.down(other, man);
            h.stop_on_the_way();
            h.up(other);
        }
    }
    let set_down_each = !profile.human || h.rng.gen_bool(0.5);
    for (k, &land) in path.iter().enumerate().skip(1) {
        let last = k == path.len() - 1;
        if last || set_down_each {
            h.wait(150, 450);
            h.down(land, man);
            if when == 1 {
                h.wait(150, 400);
                h.up(captured[k - 1]);
            }
            if !last {
                h.wait(100, 300);
                h.up(land);
            }
        } else if when == 1 {
            h.wait(150, 400);
            h.up(captured[k - 1]);
        }
    }
    // (Drawn only when the habit is on: sessions without it stay as
    // they were.)
    let left = h.habits.left_for_opponent;
    let leave = |h: &mut Hands| left > 0.0 && h.rng.gen_bool(left);
    if when == 2 {
        if !captured.is_empty() && leave(h) {
            h.deferred
                .extend(captured.iter().map(|&c| Deferred::Clear(c)));
        } else {
            h.wait(200, 900);
            remove(h, &captured, swept);
        }
    }
    if mv.is_crowning() {
        let king = if man.is_ascii_uppercase() { 'K' } else { 'k' };
        let to = *path.last().expect("path");
        if leave(h) {
            h.deferred.push(Deferred::Crown(to, king));
        } else {
            crown(h, to, king);
        }
    }
    let mut avoid = path.clone();
    avoid.extend(&captured);
    h.maybe_knock(&avoid);
}

/// The mover crowns their man: turned over, or a second piece stacked.
fn crown(h: &mut Hands, to: Square, king: char) {
    let profile = h.profile;
    {
        h.wait(400, 1500);
        if profile.human && h.rng.gen_bool(0.5) {
            // Turned over: lifted and set down as a king.
            h.up(to);
            h.wait(200, 600);
            h.down(to, king);
        } else {
            // A second piece stacked on the man.
            h.down(to, king);
        }
    }
}

/// The opponent, at the start of their turn, clears the captured men and
/// crowns the man the mover left.
fn do_deferred(h: &mut Hands) {
    let items = std::mem::take(&mut h.deferred);
    for &d in &items {
        h.wait(250, 800);
        match d {
            Deferred::Clear(sq) => h.up(sq),
            // A second piece stacked on the man.
            Deferred::Crown(sq, king) => h.down(sq, king),
        }
    }
    if !items.is_empty() {
        h.wait(200, 600);
    }
}

/// Plays a draughts game (moves legal from the start) on a simulated board.
pub fn simulate_draughts(moves: &[draughts::Move], profile: OpenProfile, seed: u64) -> OpenSession {
    simulate_draughts_with(moves, profile, Habits::default(), seed)
}

/// [`simulate_draughts`] with more habits.
pub fn simulate_draughts_with(
    moves: &[draughts::Move],
    profile: OpenProfile,
    habits: Habits,
    seed: u64,
) -> OpenSession {
    let mut pos = draughts::Position::start();
    let mut h = draughts_hands(profile, seed, &pos);
    h.habits = habits;
    h.hello();
    let firsts: Vec<_> = pos
        .legal_moves()
        .iter()
        .map(|m| (dsq(m.from()), dsq(m.to())))
        .collect();
    h.maybe_knock_before_first_move(&firsts);
    h.maybe_push_second_mover(&firsts);
    for mv in moves {
        h.think();
        play_draughts(&mut h, &pos, mv);
        h.ply_done();
        pos.play(mv);
    }
    if !h.deferred.is_empty() {
        // The opponent clears the last capture.
        h.think();
        do_deferred(&mut h);
    }
    h.wait(2000, 2000);
    h.session()
}

/// The hands at a xiangqi board in the start position.
pub(super) fn xiangqi_hands(profile: OpenProfile, seed: u64, start: &xiangqi::Position) -> Hands {
    let g = Geometry::XIANGQI;
    let cells = (0..g.len())
        .map(|i| {
            let sq = g.square(i).expect("in range");
            xiangqi::Square::new(sq.file as i8, sq.rank as i8)
                .and_then(|s| start.piece_at(s))
                .map(|p| p.fen_char())
        })
        .collect();
    Hands::new(OpenGame::Xiangqi, profile, seed, cells)
}

/// Plays one xiangqi move (legal in `pos`, or any piece's move from `from`
/// to `to`) with the hands, then perhaps a knock.
pub(super) fn play_xiangqi(h: &mut Hands, pos: &xiangqi::Position, mv: xiangqi::Move) {
    let profile = h.profile;
    let piece = pos.piece_at(mv.from).expect("a piece to move").fen_char();
    let (from, to) = (xsq(mv.from), xsq(mv.to));
    let capture = pos.piece_at(mv.to).is_some();
    let straight = from.file == to.file || from.rank == to.rank;
    let line_piece = "RrCc".contains(piece);
    // The square next to `to` on the line from `from` (where a chariot or
    // cannon sets down short of its victim), if it is not `from`.
    let short_of = || {
        let (df, dr) = (
            (i16::from(to.file) - i16::from(from.file)).signum(),
            (i16::from(to.rank) - i16::from(from.rank)).signum(),
        );
        let sq = Square::new(
            (i16::from(to.file) - df) as u8,
            (i16::from(to.rank) - dr) as u8,
        );
        (sq != from).then_some(sq)
    };
    let slide = h.habits.capture_slide;
    if capture
        && (straight && line_piece || "Nn".contains(piece))
        && slide > 0.0
        && h.rng.gen_bool(slide)
    {
        slide_to_capture(h, from, to, piece);
    } else if capture
        && straight
        && piece_is_chariot(piece)
        && let Some(short) = short_of().filter(|&s| h.cells[h.index(s)].is_none())
        && h.real_habit(0.2)
    {
        // A chariot set down on the way to its capture: short of the
        // victim, the victim lifted (perhaps set beside), then the capture.
        h.up(from);
        h.wait(150, 450);
        h.down(short, piece);
        h.stop_on_the_way();
        h.take_off(to, false);
        h.wait(150, 400);
        h.up(short);
        h.wait(100, 300);
        h.down(to, piece);
    } else if capture {
        if !profile.human || h.rng.gen_bool(0.5) {
            h.take_off(to, false);
            h.wait(150, 600);
            h.up(from);
        } else {
            h.up(from);
            h.wait(150, 600);
            h.take_off(to, false);
        }
        h.wait(150, 500);
        h.down(to, piece);
    } else if straight
        && line_piece
        && let Some(short) = short_of().filter(|&s| h.cells[h.index(s)].is_none())
        && h.real_habit(10.0 / 193.0)
    {
        // A real stop on the way: set down on the line short of its
        // square (a move it could have made), then on.
        h.up(from);
        h.wait(150, 450);
        h.down(short, piece);
        h.stop_on_the_way();
        h.up(short);
        h.wait(100, 300);
        h.down(to, piece);
    } else {
        h.up(from);
        let slider = "RrCcKkPp".contains(piece);
        if profile.human && straight && slider && h.rng.gen_bool(0.5) {
            // Slid along the line, the sensors seeing it on the way.
            let (df, dr) = (
                (i16::from(to.file) - i16::from(from.file)).signum(),
                (i16::from(to.rank) - i16::from(from.rank)).signum(),
            );
            let mut at = from;
            loop {
                let next = Square::new(
                    (i16::from(at.file) + df) as u8,
                    (i16::from(at.rank) + dr) as u8,
                );
                if next == to {
                    break;
                }
                h.wait(60, 140);
                h.down(next, piece);
                h.wait(40, 100);
                h.up(next);
                at = next;
            }
        }
        h.wait(150, 500);
        h.down(to, piece);
    }
    h.maybe_knock(&[from, to]);
}

/// A capture made victim first, then the piece slid to the victim's point
/// over the empty points on its way, each touched for a moment (a horse:
/// its leg) ([`Habits::capture_slide`]).
fn slide_to_capture(h: &mut Hands, from: Square, to: Square, piece: char) {
    h.up(to);
    h.wait(200, 700);
    h.up(from);
    for point in points_between(from, to, "Nn".contains(piece)) {
        if h.cells[h.index(point)].is_none() {
            h.wait(60, 200);
            h.down(point, piece);
            h.wait(80, 400);
            h.up(point);
        }
    }
    h.wait(80, 250);
    h.down(to, piece);
}

/// The points a piece passes between `from` and `to`: on a line, every
/// point between; a horse (`horse`), the point of its leg (one step
/// along the longer leg of its move).
fn points_between(from: Square, to: Square, horse: bool) -> Vec<Square> {
    let (df, dr) = (
        i16::from(to.file) - i16::from(from.file),
        i16::from(to.rank) - i16::from(from.rank),
    );
    if horse {
        let leg = if df.abs() > dr.abs() {
            (df.signum(), 0)
        } else {
            (0, dr.signum())
        };
        return vec![Square::new(
            (i16::from(from.file) + leg.0) as u8,
            (i16::from(from.rank) + leg.1) as u8,
        )];
    }
    let steps = df.abs().max(dr.abs());
    (1..steps)
        .map(|k| {
            Square::new(
                (i16::from(from.file) + k * df.signum()) as u8,
                (i16::from(from.rank) + k * dr.signum()) as u8,
            )
        })
        .collect()
}

/// Whether a xiangqi FEN letter is a chariot (rook).
fn piece_is_chariot(piece: char) -> bool {
    piece.eq_ignore_ascii_case(&'r')
}

/// Plays a xiangqi game (moves legal from the start) on a simulated board.
pub fn simulate_xiangqi(moves: &[xiangqi::Move], profile: OpenProfile, seed: u64) -> OpenSession {
    simulate_xiangqi_with(moves, profile, Habits::default(), seed)
}

/// [`simulate_xiangqi`] with more habits.
pub fn simulate_xiangqi_with(
    moves: &[xiangqi::Move],
    profile: OpenProfile,
    habits: Habits,
    seed: u64,
) -> OpenSession {
    let mut pos = xiangqi::Position::start();
    let mut h = xiangqi_hands(profile, seed, &pos);
    h.habits = habits;
    h.hello();
    let firsts: Vec<_> = (pos.legal_moves().iter())
        .filter(|m| pos.piece_at(m.to).is_none())
        .map(|m| (xsq(m.from), xsq(m.to)))
        .collect();
    h.maybe_knock_before_first_move(&firsts);
    h.maybe_push_second_mover(&firsts);
    for &mv in moves {
        h.think();
        play_xiangqi(&mut h, &pos, mv);
        h.ply_done();
        pos.play(mv).expect("legal moves");
    }
    h.wait(2000, 2000);
    h.session()
}

/// The session as an open-protocol capture (interface §2): the header
/// with `protocol=open` and `meta`, then one `<` line per board line, the
/// line's bytes in hex (`\n` included). With `split`, some lines are cut
/// across two capture lines, as a serial port delivers them.
pub fn capture_text(session: &OpenSession, meta: &[(String, String)], split: bool) -> String {
    let mut out = String::from("# boardcast capture v1 protocol=open");
    for (k, v) in meta {
        out += &format!(" {k}={v}");
    }
    out.push('\n');
    let hex = |b: &[u8]| {
        b.iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (i, (t, line)) in session.lines.iter().enumerate() {
        let bytes = format!("{line}\n").into_bytes();
        if split && i % 7 == 3 && bytes.len() > 3 {
            let cut = bytes.len() / 2;
            // The rest 2 ms later, never after the next line.
            let next = session.lines.get(i + 1).map_or(Millis::MAX, |(t, _)| *t);
            out += &format!(
                "{t} < {}\n{} < {}\n",
                hex(&bytes[..cut]),
                (t + 2).min(next).max(*t),
                hex(&bytes[cut..])
            );
        } else {
            out += &format!("{t} < {}\n", hex(&bytes));
        }
    }
    out
}

/// A draughts session as a capture of an 8x8 vendor board that reports
/// occupancy only: a Certabo board in occupancy mode (Tabutronic frames,
/// one occupancy byte per rank), one frame after every change, with the
/// header `protocol=certabo occupancy=yes game=draughts` and `meta`. The
/// board's own squares are the open protocol's (the session's lines name
/// them); pieces are not identified.
pub fn tabutronic_capture_text(session: &OpenSession, meta: &[(String, String)]) -> String {
    use boardcast_protocols::certabo::Frame;
    use boardcast_protocols::open::{Decoder, Game, Line};
    use boardcast_protocols::reading::Content;

    use boardcast::capture::{Direction, Header, Writer};
    use boardcast::family::Family;
    let mut words = vec![
        ("occupancy".to_string(), "yes".to_string()),
        ("game".to_string(), "draughts".to_string()),
    ];
    words.extend(meta.iter().cloned());
    let header = Header {
        protocol: Family::Certabo,
        meta: words,
    };
    let mut w = Writer::new(Vec::new(), &header).expect("writing to memory");
    let decoder = Decoder::with_game(Game::Draughts, Geometry::CHESS);
    // Rank 8 first, bit 7 = file a.
    let mut ranks = [0u8; 8];
    let set = |ranks: &mut [u8; 8], sq: Square, on: bool| {
        let (r, bit) = (7 - sq.rank as usize, 0x80u8 >> sq.file);
        if on {
            ranks[r] |= bit;
        } else {
            ranks[r] &= !bit;
        }
    };
    for (t, text) in &session.lines {
        match decoder.parse(text) {
            Ok(Line::Board(snap)) => {
                for i in 0..Geometry::CHESS.len() {
                    let sq = Geometry::CHESS.square(i).expect("in range");
                    let on = !matches!(snap.get(sq), Some(Content::Empty) | None);
                    set(&mut ranks, sq, on);
                }
            }
            Ok(Line::Up(sq)) => set(&mut ranks, sq, false),
            Ok(Line::Down { square, .. }) => set(&mut ranks, square, true),
            _ => continue,
        }
        w.write_chunk(
            *t,
            Direction::FromBoard,
            &Frame::Occupancy(ranks).to_bytes(),
        )
        .expect("writing to memory");
    }
    w.flush().expect("writing to memory");
    String::from_utf8(w.into_inner()).expect("captures are ASCII")
}

/// A draughts session as an 8 × 8 board of a chess family plays it (DGT,
/// Millennium, a Tabutronic Certabo): the men stand on the dark squares as
/// pieces the board can sense (white pawns for the first player's, black
/// pawns for the other's; a board without piece identity shows occupancy),
/// and every line of the session becomes the squares it changed. The
/// session's first whole board is the board as it stands when play begins;
/// the lines are in the board's own orientation, so the session does not
/// stand turned round.
pub fn draughts_on_a_vendor_board(session: &OpenSession) -> crate::Session {
    use boardcast::games::chess::{Color, Piece, Role};
    use boardcast::track::Cell;
    use boardcast_protocols::open::{Decoder, Game, Line};
    use boardcast_protocols::reading::Content;
    let decoder = Decoder::with_game(Game::Draughts, Geometry::CHESS);
    let index = |sq: Square| usize::from(sq.rank) * 8 + usize::from(sq.file);
    let cell = |content: Option<Content>| match content {
        None | Some(Content::Empty) => Cell::Empty,
        Some(Content::Piece(p)) if p.letter().is_ascii_lowercase() => Cell::Piece(Piece {
            color: Color::Black,
            role: Role::Pawn,
        }),
        Some(_) => Cell::Piece(Piece {
            color: Color::White,
            role: Role::Pawn,
        }),
    };
    let mut cells: Option<[Cell; 64]> = None;
    let mut initial = [Cell::Empty; 64];
    let mut readings = Vec::new();
    for (t, text) in &session.lines {
        let mut next = cells.unwrap_or(initial);
        match decoder.parse(text) {
            Ok(Line::Board(snap)) => {
                for i in 0..Geometry::CHESS.len() {
                    let sq = Geometry::CHESS.square(i).expect("in range");
                    next[index(sq)] = cell(snap.get(sq));
                }
            }
            Ok(Line::Up(sq)) => next[index(sq)] = Cell::Empty,
            Ok(Line::Down { square, piece }) => {
                next[index(square)] = cell(Some(piece.map_or(Content::Occupied, Content::Piece)));
            }
            _ => continue,
        }
        let Some(before) = cells else {
            initial = next;
            cells = Some(next);
            continue;
        };
        for (i, (was, now)) in before.iter().zip(next.iter()).enumerate() {
            if was != now {
                let sq = boardcast::games::chess::Square::new(i as u32);
                readings.push((*t, crate::Sensed::Square(sq, *now)));
            }
        }
        cells = Some(next);
    }
    crate::Session {
        readings,
        truth: Vec::new(),
        rotated: false,
        initial: Box::new(initial),
        clock: Vec::new(),
    }
}

/// The games of a xiangqi PGN file (several records one after the other),
/// as moves from the start position; records from another start are left
/// out (the simulated board sets up the start position).
pub fn read_xiangqi_games(text: &str) -> Result<Vec<Vec<xiangqi::Move>>, xiangqi::pgn::PgnError> {
    let mut records: Vec<String> = Vec::new();
    let mut in_moves = true;
    for line in text.lines() {
        let tag = line.trim_start().starts_with('[');
        if tag && in_moves {
            records.push(String::new());
        }
        if let Some(r) = records.last_mut() {
            r.push_str(line);
            r.push('\n');
        }
        if !line.trim().is_empty() {
            in_moves = !tag;
        }
    }
    let mut out = Vec::new();
    for r in records {
        let rec = xiangqi::pgn::read(&r)?;
        if rec.start == xiangqi::Position::start() {
            out.push(rec.moves);
        }
    }
    Ok(out)
}
