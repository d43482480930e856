//! Xiangqi played by the simulated hands: captures victim first or mover
//! first, slides along a line, a chariot set down short of its victim.

use boardcast_protocols::reading::{Geometry, Square};
use boardcast_rules::xiangqi;
use rand::Rng;

use super::hands::Hands;
use super::{Habits, OtherGame, OtherGameProfile, OtherGameSession};

/// A xiangqi point as the open protocol's (file, rank) square.
pub(crate) fn xsq(s: xiangqi::Square) -> Square {
    Square::new(s.file() as u8, s.rank() as u8)
}

/// The hands at a xiangqi board in the start position.
pub(crate) fn xiangqi_hands(
    profile: OtherGameProfile,
    seed: u64,
    start: &xiangqi::Position,
) -> Hands {
    let g = Geometry::XIANGQI;
    let cells = (0..g.len())
        .map(|i| {
            let sq = g.square(i).expect("in range");
            xiangqi::Square::new(sq.file as i8, sq.rank as i8)
                .and_then(|s| start.piece_at(s))
                .map(|p| p.fen_char())
        })
        .collect();
    Hands::new(OtherGame::Xiangqi, profile, seed, cells)
}

/// Plays one xiangqi move (legal in `pos`, or any piece's move from `from`
/// to `to`) with the hands, then perhaps a knock.
pub(crate) fn play_xiangqi(h: &mut Hands, pos: &xiangqi::Position, mv: xiangqi::Move) {
    let profile = h.profile;
    let piece = pos.piece_at(mv.from).expect("a piece to move").fen_char();
    let (from, to) = (xsq(mv.from), xsq(mv.to));
    let capture = pos.piece_at(mv.to).is_some();
    let straight = from.file == to.file || from.rank == to.rank;
    let line_piece = "RrCc".contains(piece);
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
        && let Some(short) = short_of(from, to).filter(|&s| h.cells[h.index(s)].is_none())
        && h.real_habit(0.2)
    {
        chariot_short_of_victim(h, from, short, to, piece);
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
        && let Some(short) = short_of(from, to).filter(|&s| h.cells[h.index(s)].is_none())
        && h.real_habit(10.0 / 193.0)
    {
        stop_short(h, from, short, to, piece);
    } else {
        move_to_empty(h, from, to, piece, straight);
    }
    h.maybe_knock(&[from, to]);
}

/// The square next to `to` on the line from `from` (where a chariot or
/// cannon sets down short of its victim), if it is not `from`.
fn short_of(from: Square, to: Square) -> Option<Square> {
    let (df, dr) = (
        (i16::from(to.file) - i16::from(from.file)).signum(),
        (i16::from(to.rank) - i16::from(from.rank)).signum(),
    );
    let sq = Square::new(
        (i16::from(to.file) - df) as u8,
        (i16::from(to.rank) - dr) as u8,
    );
    (sq != from).then_some(sq)
}

/// A chariot set down on the way to its capture: short of the victim, the
/// victim lifted (perhaps set beside), then the capture.
fn chariot_short_of_victim(h: &mut Hands, from: Square, short: Square, to: Square, piece: char) {
    h.up(from);
    h.wait(150, 450);
    h.down(short, piece);
    h.stop_on_the_way();
    h.take_off(to, false);
    h.wait(150, 400);
    h.up(short);
    h.wait(100, 300);
    h.down(to, piece);
}

/// A real stop on the way: set down on the line short of its square (a
/// move it could have made), then on.
fn stop_short(h: &mut Hands, from: Square, short: Square, to: Square, piece: char) {
    h.up(from);
    h.wait(150, 450);
    h.down(short, piece);
    h.stop_on_the_way();
    h.up(short);
    h.wait(100, 300);
    h.down(to, piece);
}

/// A move to an empty point: lifted and set down, or (human, along a line)
/// slid there, the sensors seeing it on the way.
fn move_to_empty(h: &mut Hands, from: Square, to: Square, piece: char, straight: bool) {
    h.up(from);
    let slider = "RrCcKkPp".contains(piece);
    if h.profile.human && straight && slider && h.rng.gen_bool(0.5) {
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
pub fn simulate_xiangqi(
    moves: &[xiangqi::Move],
    profile: OtherGameProfile,
    seed: u64,
) -> OtherGameSession {
    simulate_xiangqi_with(moves, profile, Habits::default(), seed)
}

/// [`simulate_xiangqi`] with more habits.
pub fn simulate_xiangqi_with(
    moves: &[xiangqi::Move],
    profile: OtherGameProfile,
    habits: Habits,
    seed: u64,
) -> OtherGameSession {
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
