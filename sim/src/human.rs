//! The `human` handling profile: the habits of real players (design §3).
//!
//! Each habit has a probability per move; all randomness comes from the
//! table's seeded generator, so a seed reproduces a session exactly. The
//! timing figures are chosen to match what a DGT board reports of people:
//! a sliding piece crosses a square in 40-250 ms, a piece set down on a
//! wrong square stays there under 400 ms, thinking takes from 300 ms (time
//! trouble) to many minutes.

use rand::Rng;

use super::{Profile, Table, castle_king_first, parts, reach};
use boardcast::games::chess::{Piece, Position, Role, Square};
use boardcast::track::Cell;

/// Probabilities and timings of the human profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Human {
    /// A sliding piece is seen on the squares it crosses.
    pub slide: f64,
    /// A piece is set down briefly on a wrong square first.
    pub wrong_square: f64,
    /// A piece that could move is lifted and put back, another is moved.
    pub touch: f64,
    /// A very short lift (adjustment).
    pub adjust: f64,
    /// A square flickers empty for a few milliseconds.
    pub flicker: f64,
    /// A piece of either side is knocked: pushed onto a free neighbouring
    /// square (or knocked over on its own) and set back 0.8-4 s later.
    /// Pushes of the side to move's pieces never land where that piece
    /// could legally move: that is a move and a takeback, not a knock.
    pub knock: f64,
    /// Right after a move, the piece that just moved is pushed onto a free
    /// neighbouring square and set back 0.8-3 s later (a sleeve, a hand
    /// leaving the piece).
    pub knock_moved: f64,
    /// A piece set down off-centre is read as another piece for a moment.
    pub misread: f64,
    /// A capture in three touches: the capturing piece is set down beside
    /// its victim (or on a square on its way), the victim is lifted, then
    /// the piece goes onto the victim's square (seen on real DGT boards).
    pub capture_beside: f64,
    /// The last plies are taken back and played again.
    pub takeback: f64,
    /// Share of moves made in time trouble (reply within 1.5 s).
    pub blitz: f64,
    /// The least time before anything happens on the board after a move
    /// (the opponent's reply, a knock): with a clock, its press comes
    /// first. 0: no such wait.
    pub first_ms: u64,
    /// A capture by a bishop, rook or queen made victim first, the piece
    /// then slid to the victim's square touching down on every square on
    /// its way for 80-400 ms each (issue 44: on a board sensing occupancy
    /// only, the last square touched is not the landing).
    pub capture_slide: f64,
}

impl Default for Human {
    fn default() -> Self {
        Human {
            slide: 0.4,
            wrong_square: 0.05,
            touch: 0.04,
            adjust: 0.05,
            flicker: 0.03,
            knock: 0.01,
            knock_moved: 0.005,
            misread: 0.03,
            capture_beside: 0.1,
            takeback: 0.006,
            blitz: 0.25,
            first_ms: 0,
            capture_slide: 0.0,
        }
    }
}

impl Profile for Human {
    fn think(&mut self, table: &mut Table, pos: &Position) {
        // (With a clock, the opponent's hand waits for the press.)
        let ms = thinking_time(table, self.blitz, 1_200_000).max(self.first_ms);
        // A knock of the piece that just moved comes first, while the hand
        // that moved it is still over the board.
        if table.rng().gen_bool(self.knock_moved)
            && let Some(sq) = table.last_placed()
            && table.cell(sq) != Cell::Empty
        {
            // After the mover's hand has left it (and pressed the clock,
            // when there is one). Never back onto the square it came from:
            // that is a takeback, not a knock.
            let came_from = table.last_lifted();
            table.pause(900, 2_000);
            knock(table, pos, sq, came_from, 800, 3_000);
            table.mark_shown();
        }
        // Habits happen during the thinking time, which they lengthen.
        table.wait(ms);
        if table.rng().gen_bool(self.knock) {
            let sq = random_occupied(table);
            knock(table, pos, sq, None, 800, 4_000);
            table.pause(300, 2_000);
        }
        if table.rng().gen_bool(self.adjust) {
            let sq = random_own(table, pos);
            let cell = table.lift(sq);
            table.pause(40, 150);
            table.set(sq, cell);
            table.pause(200, 1_000);
        }
        if table.rng().gen_bool(self.flicker) {
            let sq = random_occupied(table);
            let cell = table.lift(sq);
            table.pause(5, 40);
            table.set(sq, cell);
        }
    }

    fn play(&mut self, table: &mut Table, pos: &Position, m: boardcast::games::chess::Move) {
        let p = parts(pos, m);
        if table.rng().gen_bool(self.touch) {
            touch_another(table, pos, p.from);
        }
        if let Some((rook_from, rook_to)) = p.rook {
            castle(table, &p, rook_from, rook_to);
            return;
        }
        let ep = p.victim.is_some_and(|v| v != p.to);
        if p.victim.is_some()
            && !ep
            && p.placed == p.piece
            && self.capture_beside > 0.0
            && table.rng().gen_bool(self.capture_beside)
            && self.capture_in_three_touches(table, &p)
        {
            return;
        }
        if !ep && self.slide_to_capture(table, &p) {
            return;
        }
        let victim_first = table.rng().gen_bool(0.5);
        if let Some(v) = p.victim
            && victim_first
        {
            table.lift(v);
            reach(table);
        }
        let piece = p.piece;
        table.lift(p.from);
        // Attacker first: held in the hand while the victim comes off.
        if let Some(v) = p.victim
            && !victim_first
            && !ep
        {
            table.pause(100, 400);
            table.lift(v);
        }
        let promotion = p.placed != piece;
        if promotion && table.rng().gen_bool(0.5) {
            // The pawn is set on the last rank, then exchanged.
            reach(table);
            table.put(p.to, piece);
            table.pause(400, 2_500);
            table.lift(p.to);
            table.pause(100, 600);
            self.set_down(table, p.to, p.placed);
        } else {
            self.carry(table, &p, promotion);
        }
        if let Some(v) = p.victim
            && ep
            && !victim_first
        {
            reach(table);
            table.lift(v);
        }
    }

    fn maybe_takeback(
        &mut self,
        table: &mut Table,
        game: &[Position],
        ply: usize,
    ) -> Option<usize> {
        if ply < 3 || !table.rng().gen_bool(self.takeback) {
            return None;
        }
        let back = table.rng().gen_range(1..=2usize);
        table.pause(1_000, 4_000);
        for undo in (ply - back + 1..=ply).rev() {
            let before = &game[undo - 1];
            let after = &game[undo];
            restore(table, before, after);
            table.mark(|at| super::Truth::Takeback {
                to_ply: undo - 1,
                at,
            });
            table.pause(300, 1_200);
        }
        table.pause(2_000, 6_000);
        Some(ply - back)
    }
}

/// How long a player thinks (ms): a share `blitz` of moves in time
/// trouble (0.3-1.5 s), most in 2-30 s, one in ten longer, up to
/// `longest`.
pub(super) fn thinking_time(table: &mut Table, blitz: f64, longest: u64) -> u64 {
    let r: f64 = table.rng().r#gen();
    if r < blitz {
        table.rng().gen_range(300..1_500)
    } else if r < 0.9 {
        table.rng().gen_range(2_000..30_000)
    } else {
        table.rng().gen_range(30_000..longest)
    }
}

/// Touches a piece that could move, other than the one on `from`, and puts
/// it back.
fn touch_another(table: &mut Table, pos: &Position, from: Square) {
    let movable: Vec<Square> = pos
        .legal_moves()
        .map(|m| m.from())
        .filter(|&s| s != from)
        .collect();
    if !movable.is_empty() {
        let sq = movable[table.rng().gen_range(0..movable.len())];
        let cell = table.lift(sq);
        table.pause(300, 2_000);
        table.set(sq, cell);
        table.pause(200, 1_500);
    }
}

/// Castles: king first mostly, else rook first, else both hands at once.
fn castle(table: &mut Table, p: &super::Parts, rook_from: Square, rook_to: Square) {
    let rook = Piece {
        color: p.piece.color,
        role: Role::Rook,
    };
    let overlap = p.to == rook_from || rook_to == p.from || p.from == p.to;
    let r: f64 = table.rng().r#gen();
    if r < 0.6 || overlap && r < 0.85 {
        castle_king_first(table, p, rook_from, rook_to);
    } else if r < 0.85 {
        // Rook first (against Law 4.4b, but common).
        table.lift(rook_from);
        reach(table);
        table.put(rook_to, rook);
        table.pause(150, 600);
        table.lift(p.from);
        reach(table);
        table.put(p.to, p.piece);
    } else {
        // Two hands at once.
        table.lift(p.from);
        table.pause(10, 120);
        table.lift(rook_from);
        table.pause(150, 400);
        table.put(p.to, p.piece);
        table.pause(10, 150);
        table.put(rook_to, rook);
    }
}

impl Human {
    /// With [`Human::capture_slide`], a capture by a bishop, rook or queen
    /// made victim first and slid to the victim; whether it was.
    fn slide_to_capture(&mut self, table: &mut Table, p: &super::Parts) -> bool {
        let slider = matches!(p.piece.role, Role::Bishop | Role::Rook | Role::Queen);
        let Some(v) = p.victim.filter(|_| slider && self.capture_slide > 0.0) else {
            return false;
        };
        if !table.rng().gen_bool(self.capture_slide) {
            return false;
        }
        table.lift(v);
        reach(table);
        table.lift(p.from);
        for sq in between(p.from, p.to) {
            table.pause(60, 200);
            table.put(sq, p.piece);
            table.pause(80, 400);
            table.lift(sq);
        }
        table.pause(80, 250);
        self.set_down(table, p.to, p.placed);
        true
    }

    /// A capture in three touches: the piece lifted and set down on a free
    /// square beside its victim or on its way, the victim lifted, the piece
    /// moved onto the victim's square. Returns `false` (nothing done) when
    /// there is no such square.
    fn capture_in_three_touches(&self, table: &mut Table, p: &super::Parts) -> bool {
        let mut near: Vec<Square> = neighbours(p.to)
            .chain(between(p.from, p.to))
            .filter(|&s| s != p.from && table.cell(s) == Cell::Empty)
            .collect();
        near.sort();
        near.dedup();
        if near.is_empty() {
            return false;
        }
        let short = near[table.rng().gen_range(0..near.len())];
        table.lift(p.from);
        reach(table);
        table.put(short, p.piece);
        table.pause(250, 1_200);
        table.lift(p.to);
        table.pause(150, 800);
        table.lift(short);
        table.pause(40, 200);
        self.set_down(table, p.to, p.placed);
        true
    }

    /// The lifted piece carried to its square: slid along its line (a
    /// slider, the sensors seeing it on the way) or reached over, perhaps
    /// set down first on a square beside (not a promotion), then set down.
    fn carry(&self, table: &mut Table, p: &super::Parts, promotion: bool) {
        let piece = p.piece;
        let slider = matches!(piece.role, Role::Bishop | Role::Rook | Role::Queen);
        if slider && table.rng().gen_bool(self.slide) {
            for sq in between(p.from, p.to) {
                if table.cell(sq) != Cell::Empty {
                    break;
                }
                table.pause(40, 250);
                table.put(sq, piece);
                table.pause(40, 250);
                table.lift(sq);
            }
        } else {
            reach(table);
        }
        if !promotion && table.rng().gen_bool(self.wrong_square) {
            let near: Vec<Square> = neighbours(p.to)
                .filter(|&s| s != p.from && table.cell(s) == Cell::Empty)
                .collect();
            if !near.is_empty() {
                let wrong = near[table.rng().gen_range(0..near.len())];
                table.put(wrong, piece);
                table.pause(100, 380);
                table.lift(wrong);
                table.pause(60, 250);
            }
        }
        self.set_down(table, p.to, p.placed);
    }

    /// Sets a piece down, sometimes read as another piece for a moment.
    fn set_down(&self, table: &mut Table, sq: Square, piece: Piece) {
        if table.rng().gen_bool(self.misread) {
            let roles = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
            let other = roles[table.rng().gen_range(0..roles.len())];
            if other != piece.role {
                table.put(
                    sq,
                    Piece {
                        color: piece.color,
                        role: other,
                    },
                );
                table.pause(20, 120);
            }
        }
        table.put(sq, piece);
    }
}

/// Puts the board back from `after` to `before` (one ply undone), square by
/// square: lifted pieces first, then the restored ones.
fn restore(table: &mut Table, before: &Position, after: &Position) {
    let changed = boardcast::games::chess::diff(before.board(), after.board());
    for sq in changed {
        if after.board().piece_at(sq).is_some() {
            table.lift(sq);
            table.pause(150, 500);
        }
    }
    for sq in changed {
        if let Some(piece) = before.board().piece_at(sq) {
            table.put(sq, piece);
            table.pause(150, 500);
        }
    }
}

/// Squares strictly between two squares on a line.
pub(super) fn between(from: Square, to: Square) -> Vec<Square> {
    let (ff, fr) = (from.file() as i32, from.rank() as i32);
    let (tf, tr) = (to.file() as i32, to.rank() as i32);
    let (df, dr) = ((tf - ff).signum(), (tr - fr).signum());
    let steps = (tf - ff).abs().max((tr - fr).abs());
    (1..steps)
        .map(|i| square(ff + df * i, fr + dr * i).expect("between two squares"))
        .collect()
}

/// The squares around `sq`.
pub(super) fn neighbours(sq: Square) -> impl Iterator<Item = Square> {
    let (f, r) = (sq.file() as i32, sq.rank() as i32);
    (-1..=1)
        .flat_map(move |df| (-1..=1).map(move |dr| (df, dr)))
        .filter(|&(df, dr)| (df, dr) != (0, 0))
        .filter_map(move |(df, dr)| square(f + df, r + dr))
}

fn square(file: i32, rank: i32) -> Option<Square> {
    ((0..8).contains(&file) && (0..8).contains(&rank))
        .then(|| Square::new((rank * 8 + file) as u32))
}

/// Knocks the piece on `sq`: pushed onto a free neighbouring square (not
/// one where the side to move could legally take it), or knocked over on
/// its square when there is none; set back `lo..=hi` ms later.
fn knock(table: &mut Table, pos: &Position, sq: Square, not_to: Option<Square>, lo: u64, hi: u64) {
    let cell = table.cell(sq);
    let movable = crate::color_of(cell) == Some(pos.turn());
    let free: Vec<Square> = neighbours(sq)
        .filter(|&s| table.cell(s) == Cell::Empty && Some(s) != not_to)
        // (A king knocked onto a centre square next to the other king is
        // the players' result signal, not a knock.)
        .filter(|&s| {
            !matches!(cell, Cell::Piece(p) if p.role == Role::King)
                || ![Square::D4, Square::D5, Square::E4, Square::E5].contains(&s)
        })
        .filter(|&s| !movable || !pos.legal_moves().any(|m| m.from() == sq && m.to() == s))
        .collect();
    if free.is_empty() || table.rng().gen_bool(0.25) {
        table.lift(sq);
        table.pause(lo, hi);
        table.set(sq, cell);
        return;
    }
    let to = free[table.rng().gen_range(0..free.len())];
    table.lift(sq);
    table.pause(40, 150);
    table.set(to, cell);
    table.pause(lo, hi);
    table.lift(to);
    table.pause(100, 400);
    table.set(sq, cell);
}

fn random_occupied(table: &mut Table) -> Square {
    let occupied: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|&s| table.cell(s) != Cell::Empty)
        .collect();
    occupied[table.rng().gen_range(0..occupied.len())]
}

fn random_own(table: &mut Table, pos: &Position) -> Square {
    let own: Vec<Square> = pos.board().by_color(pos.turn()).into_iter().collect();
    own[table.rng().gen_range(0..own.len())]
}
