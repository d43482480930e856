//! Chess faults, on a DGT board played with the human profile: each
//! kind of [`FaultKind::CHESS`] has its injector ([`INJECTORS`]).

use rand::Rng;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::{FaultCase, FaultKind};
use crate::{Human, Profile, Session, SourceGame, Table, Truth, parts};
use boardcast::event::{Millis, Side};
use boardcast::games::chess::irregular::find_pseudo_move;
use boardcast::games::chess::{Board, Color, Move, Piece, Position, Rank, Role, Square};
use boardcast::track::Cell;

/// Plays plies `moves` from `pos` on the table with `profile`, marking each
/// completion; returns the position reached.
fn play_line(
    table: &mut Table,
    profile: &mut Human,
    mut pos: Position,
    moves: &[Move],
    first_ply: usize,
) -> Position {
    for (i, &m) in moves.iter().enumerate() {
        profile.think(table, &pos);
        profile.play(table, &pos, m);
        let ply = first_ply + i;
        table.mark(|at| Truth::Ply { ply, at });
        pos = pos.play(m);
    }
    pos
}

/// A table on which the first `k` plies of `game` have been played.
fn first_plies(game: &SourceGame, k: usize, seed: u64, profile: &mut Human) -> Table {
    let mut table = Table::new(game.start.board(), seed);
    table.wait(1_000);
    play_line(&mut table, profile, game.start.clone(), &game.moves[..k], 1);
    table
}

fn quiet_human() -> Human {
    Human {
        takeback: 0.0,
        knock: 0.0,
        knock_moved: 0.0,
        ..Human::default()
    }
}

/// An illegal displacement of one piece of `pos`'s side to move: a piece
/// (not the king) set on an empty square it cannot legally reach, that
/// reads as exactly that one move. Returns the piece, its squares, and the
/// board it makes.
fn illegal_shift(pos: &Position, rng: &mut SmallRng) -> Option<(Piece, Square, Square, Board)> {
    let mover = pos.turn();
    let pieces: Vec<(Square, Piece)> = pos
        .board()
        .iter()
        .filter(|(_, p)| p.color == mover && p.role != Role::King && p.role != Role::Pawn)
        .collect();
    for _ in 0..64 {
        if pieces.is_empty() {
            return None;
        }
        let (from, piece) = pieces[rng.gen_range(0..pieces.len())];
        let to = Square::new(rng.gen_range(0..64));
        if pos.board().piece_at(to).is_some()
            || pos.legal_moves().any(|m| m.from() == from && m.to() == to)
        {
            continue;
        }
        let mut board = pos.board().clone();
        board.discard_piece_at(from);
        board.set_piece_at(to, piece);
        // It must read as that one move and nothing legal.
        if find_pseudo_move(pos, &board).is_none()
            || pos.legal_moves().any(|m| pos.play(m).board() == &board)
        {
            continue;
        }
        return Some((piece, from, to, board));
    }
    None
}

/// Builds a fault case of `kind` in `game`, or `None` when the game offers
/// no place for it (no promotion to a queen, say).
pub fn inject(game: &SourceGame, kind: FaultKind, seed: u64) -> Option<FaultCase<Session>> {
    let mut positions = vec![game.start.clone()];
    for &m in &game.moves {
        let next = positions.last().expect("start").play(m);
        positions.push(next);
    }
    let mut at = Inject {
        game,
        kind,
        seed,
        rng: SmallRng::seed_from_u64(seed ^ 0x5eed_fa17),
        profile: quiet_human(),
        positions,
    };
    let (_, injector) = INJECTORS.iter().find(|(k, _)| *k == kind)?;
    injector(&mut at)
}

/// One fault's injector: plays the game with the fault in it.
type Injector = fn(&mut Inject<'_>) -> Option<FaultCase<Session>>;

/// The injector of every fault kind.
const INJECTORS: [(FaultKind, Injector); 9] = [
    (FaultKind::WrongSetup, wrong_setup),
    (FaultKind::IllegalTakenBack, illegal_taken_back),
    (FaultKind::IllegalStands, illegal_stands),
    (FaultKind::Displaced, displaced),
    (FaultKind::Pushed, pushed),
    (FaultKind::Unpromoted, unpromoted),
    (FaultKind::IllegalUncompleted, illegal_uncompleted),
    (FaultKind::PushedOn, pushed_on),
    (FaultKind::PushedMidTurn, pushed_mid_turn),
];

/// What every injector starts from: the game, its positions, the fault's
/// random source and the players' (quiet) handling.
struct Inject<'a> {
    game: &'a SourceGame,
    kind: FaultKind,
    seed: u64,
    rng: SmallRng,
    profile: Human,
    /// The position before each ply, and the final one.
    positions: Vec<Position>,
}

/// A fault in the middle of the game: after ply `k` (at `pos`), on the
/// table the first `k` plies were played on.
struct MidGame {
    k: usize,
    pos: Position,
    table: Table,
}

impl Inject<'_> {
    /// The case of the injected fault.
    fn case(
        &self,
        table: Table,
        side: Option<Color>,
        record: Vec<String>,
        at_ply: usize,
    ) -> FaultCase<Session> {
        FaultCase {
            kind: self.kind,
            session: finish(table),
            side: side.map(Side::from),
            record,
            at_ply,
        }
    }

    /// A random ply in the middle of the game (`None` in a game of fewer
    /// than six plies), played up to with a pause after it.
    fn mid_game(&mut self) -> Option<MidGame> {
        let n = self.game.moves.len();
        if n < 6 {
            return None;
        }
        let k = self.rng.gen_range(2..n - 2);
        if ended_by_law(&self.positions[..=k]) {
            return None;
        }
        let pos = self.positions[k].clone();
        let mut table = first_plies(self.game, k, self.seed, &mut self.profile);
        table.pause(1_000, 5_000);
        Some(MidGame { k, pos, table })
    }

    /// Plays the rest of the game from ply `k` (at `pos`).
    fn play_on(&mut self, table: &mut Table, pos: Position, k: usize) {
        play_line(table, &mut self.profile, pos, &self.game.moves[k..], k + 1);
    }
}

/// Whether the game had ended by Law 9.6 by the last of `positions` (the
/// same position five times, or 75 moves by each side with no capture or
/// pawn move), though the players went on: boardcast reports the end and
/// reads later changes as pieces being put away, so no fault after it
/// makes an alert.
fn ended_by_law(positions: &[Position]) -> bool {
    let mut seen = std::collections::HashMap::new();
    positions.iter().any(|p| {
        // The position as repetition counts it: placement, side to move,
        // castling rights and en passant square (the FEN's first fields).
        let fen = p.fen();
        let key: Vec<&str> = fen.split(' ').take(4).collect();
        let n = seen.entry(key.join(" ")).or_insert(0);
        *n += 1;
        *n >= 5 || p.halfmoves() >= 150
    })
}

/// The back rank set up wrongly (a knight and a bishop swapped, or a pawn
/// missing), corrected by the arbiter before the game.
fn wrong_setup(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let game = at.game;
    let rng = &mut at.rng;
    let mut wrong = game.start.board().clone();
    let back = if rng.gen_bool(0.5) {
        Rank::First
    } else {
        Rank::Eighth
    };
    let side = if back == Rank::First {
        Color::White
    } else {
        Color::Black
    };
    let squares: Vec<Square> = boardcast::games::chess::File::ALL
        .into_iter()
        .map(|f| Square::from_coords(f, back))
        .collect();
    let knight = squares
        .iter()
        .copied()
        .find(|&s| wrong.role_at(s) == Some(Role::Knight))?;
    let bishop = squares
        .iter()
        .copied()
        .filter(|&s| wrong.role_at(s) == Some(Role::Bishop))
        .min_by_key(|&s| s.distance(knight))?;
    let missing_pawn = rng.gen_bool(0.3);
    if missing_pawn {
        let rank = if side == Color::White {
            Rank::Second
        } else {
            Rank::Seventh
        };
        let file = boardcast::games::chess::File::new(rng.gen_range(0..8));
        wrong.discard_piece_at(Square::from_coords(file, rank));
    } else {
        let (k, b) = (wrong.piece_at(knight)?, wrong.piece_at(bishop)?);
        wrong.set_piece_at(knight, b);
        wrong.set_piece_at(bishop, k);
    }
    let mut table = Table::new(&wrong, at.seed);
    table.pause(8_000, 20_000);
    // The arbiter corrects it.
    for sq in boardcast::games::chess::diff(&wrong, game.start.board()) {
        table.lift(sq);
        table.pause(200, 700);
    }
    for sq in boardcast::games::chess::diff(&wrong, game.start.board()) {
        if let Some(p) = game.start.board().piece_at(sq) {
            table.put(sq, p);
            table.pause(200, 700);
        }
    }
    play_line(
        &mut table,
        &mut at.profile,
        game.start.clone(),
        &game.moves,
        1,
    );
    Some(at.case(table, None, game.sans.clone(), 0))
}

/// A piece of the side that just moved pushed to a neighbouring square,
/// left there a while, and set back.
fn pushed(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let MidGame { k, pos, mut table } = at.mid_game()?;
    let side = !pos.turn();
    let just_moved = at.game.moves[k - 1].to();
    let pushes = pushes_of_side_not_to_move(&pos, just_moved, &[]);
    if pushes.is_empty() {
        return None;
    }
    let (from, to) = pushes[at.rng.gen_range(0..pushes.len())];
    let cell = table.lift(from);
    table.pause(40, 150);
    table.set(to, cell);
    table.pause(10_000, 20_000);
    table.lift(to);
    table.pause(100, 400);
    table.set(from, cell);
    table.pause(500, 2_000);
    at.play_on(&mut table, pos, k);
    Some(at.case(table, Some(side), at.game.sans.clone(), k))
}

/// The pushes [`pushed`] draws from: a piece of the side not to move (not
/// the king, nor the piece that just moved, nor one on `avoid`) onto a
/// free neighbouring square not on `avoid` (a pawn never onto the first or
/// last rank).
fn pushes_of_side_not_to_move(
    pos: &Position,
    just_moved: Square,
    avoid: &[Square],
) -> Vec<(Square, Square)> {
    pos.board()
        .by_color(!pos.turn())
        .into_iter()
        .filter(|&s| s != just_moved && pos.board().role_at(s) != Some(Role::King))
        .filter(|s| !avoid.contains(s))
        .flat_map(|s| crate::human::neighbours(s).map(move |t| (s, t)))
        .filter(|&(_, t)| pos.board().piece_at(t).is_none() && !avoid.contains(&t))
        .filter(|&(f, t)| {
            pos.board().role_at(f) != Some(Role::Pawn)
                || !matches!(t.rank(), Rank::First | Rank::Eighth)
        })
        .collect()
}

/// A piece of the side not to move pushed at a moment of the mover's turn
/// and left 9-20 s while the mover's move goes on: a moment after its own
/// side's move was set down (while that move settles), while the mover
/// thinks (the move then made beside it), or while the mover's hand holds
/// the piece it moves. Its owner, now to move, sets it back before
/// replying. The move made meanwhile must be read right, and the push be
/// `misplaced` with its side, whatever the mover's hand did.
fn pushed_mid_turn(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let n = at.game.moves.len();
    if n < 6 {
        return None;
    }
    let k = at.rng.gen_range(2..n - 2);
    if ended_by_law(&at.positions[..=k + 1]) {
        return None;
    }
    let pos = at.positions[k].clone();
    let m = at.game.moves[k];
    let p = parts(&pos, m);
    // The mover's squares stay out of the push (a push onto them is
    // another fault).
    let mut avoid = vec![p.from, p.to];
    avoid.extend(p.victim);
    avoid.extend(p.rook.iter().flat_map(|&(a, b)| [a, b]));
    let just_moved = at.game.moves[k - 1].to();
    let pushes = pushes_of_side_not_to_move(&pos, just_moved, &avoid);
    if pushes.is_empty() {
        return None;
    }
    let (from, to) = pushes[at.rng.gen_range(0..pushes.len())];
    // When the push comes: 0 a moment after the last move was set down,
    // 1 while the mover thinks, 2 while the mover's hand holds its piece
    // (a plain move only).
    let plain = p.victim.is_none() && p.rook.is_none() && m.promotion().is_none();
    let when = at.rng.gen_range(0..if plain { 3 } else { 2 });
    let mut table = first_plies(at.game, k, at.seed, &mut at.profile);
    table.pause(
        if when == 0 { 150 } else { 1_000 },
        if when == 0 { 1_200 } else { 4_000 },
    );
    let push = |table: &mut Table| {
        let cell = table.lift(from);
        table.pause(40, 150);
        table.set(to, cell);
        (table.now(), cell)
    };
    let (pushed_at, cell) = if when == 2 {
        let mover = table.lift(p.from);
        table.pause(300, 1_200);
        let pushed = push(&mut table);
        table.pause(300, 1_500);
        table.set(p.to, mover);
        pushed
    } else {
        let pushed = push(&mut table);
        table.pause(300, 4_000);
        at.profile.play(&mut table, &pos, m);
        pushed
    };
    table.mark(|t| Truth::Ply { ply: k + 1, at: t });
    // It stands 9-20 s, then its owner sets it back.
    let stands = at.rng.gen_range(9_000..20_000);
    table.wait((pushed_at + stands).saturating_sub(table.now()).max(300));
    table.lift(to);
    table.pause(100, 400);
    table.set(from, cell);
    table.pause(500, 2_000);
    let after = pos.play(m);
    at.play_on(&mut table, after, k + 1);
    Some(at.case(table, Some(!pos.turn()), at.game.sans.clone(), k))
}

/// The piece that just moved pushed on along its own line: its move
/// stood past the final time (2.4 s: shorter stops are stops on the way,
/// which only the board's next readings tell from a push), then it is
/// pushed to a neighbouring empty square the same move could have
/// reached, left there 10-20 s and set back.
fn pushed_on(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let MidGame { k, pos, mut table } = at.mid_game()?;
    let before = &at.positions[k - 1];
    let last = at.game.moves[k - 1];
    let on: Vec<Square> = before
        .legal_moves()
        .filter(|m| {
            m.from() == last.from()
                && m.to() != last.to()
                && m.promotion().is_none()
                && !m.is_castle()
                && pos.board().piece_at(m.to()).is_none()
                && crate::human::neighbours(last.to()).any(|n| n == m.to())
                && matches!(m.role(), Role::Bishop | Role::Rook | Role::Queen)
        })
        .map(|m| m.to())
        .collect();
    if on.is_empty() {
        return None;
    }
    let to = on[at.rng.gen_range(0..on.len())];
    table.pause(1_500, 3_000);
    let cell = table.lift(last.to());
    table.pause(40, 150);
    table.set(to, cell);
    table.pause(10_000, 20_000);
    table.lift(to);
    table.pause(100, 400);
    table.set(last.to(), cell);
    table.pause(500, 2_000);
    at.play_on(&mut table, pos.clone(), k);
    Some(at.case(table, Some(!pos.turn()), at.game.sans.clone(), k))
}

/// An illegal move nobody completes: a piece of the side to move (not the
/// king or a pawn) set on a square it cannot legally reach, empty or
/// holding a piece of the other side (not its king) that the hand takes
/// off first, or the king taking a piece the other side guards. It stands
/// 10-20 s with no clock press and no piece of the opponent touched, and
/// is taken back; play goes on.
fn illegal_uncompleted(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let MidGame { k, pos, mut table } = at.mid_game()?;
    let rng = &mut at.rng;
    let mover = pos.turn();
    let board = pos.board();
    let king = board.king_of(mover)?;
    // King captures into check, then any piece's illegal shift or capture.
    let mut shifts: Vec<(Square, Square)> = crate::human::neighbours(king)
        .filter(|&t| {
            board
                .piece_at(t)
                .is_some_and(|p| p.color != mover && p.role != Role::King)
                && !pos.legal_moves().any(|m| m.from() == king && m.to() == t)
        })
        .map(|t| (king, t))
        .collect();
    if shifts.is_empty() || rng.gen_bool(0.5) {
        let pieces: Vec<Square> = board
            .iter()
            .filter(|(_, p)| p.color == mover && p.role != Role::King && p.role != Role::Pawn)
            .map(|(s, _)| s)
            .collect();
        for _ in 0..64 {
            if pieces.is_empty() {
                break;
            }
            let from = pieces[rng.gen_range(0..pieces.len())];
            let to = Square::new(rng.gen_range(0..64));
            let target = board.piece_at(to);
            if to == from
                || target.is_some_and(|p| p.color == mover || p.role == Role::King)
                || pos.legal_moves().any(|m| m.from() == from && m.to() == to)
            {
                continue;
            }
            shifts = vec![(from, to)];
            break;
        }
    }
    let &(from, to) = shifts.first()?;
    let piece = board.piece_at(from)?;
    let taken = board.piece_at(to);
    table.lift(from);
    table.pause(200, 600);
    if taken.is_some() {
        table.lift(to);
        table.pause(100, 300);
    }
    table.put(to, piece);
    table.pause(10_000, 20_000);
    // Noticed by its player, and taken back.
    table.lift(to);
    table.pause(100, 300);
    if let Some(victim) = taken {
        table.put(to, victim);
        table.pause(100, 300);
    }
    table.put(from, piece);
    table.pause(1_000, 3_000);
    at.play_on(&mut table, pos.clone(), k);
    Some(at.case(table, Some(mover), at.game.sans.clone(), k))
}

/// One piece of each side, neither a king, knocked off the board and set
/// back a while later.
fn displaced(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let MidGame { k, pos, mut table } = at.mid_game()?;
    let mut knocked = Vec::new();
    for color in [Color::White, Color::Black] {
        let candidates: Vec<Square> = pos
            .board()
            .iter()
            .filter(|(_, p)| p.color == color && p.role != Role::King)
            .map(|(s, _)| s)
            .collect();
        let sq = candidates[at.rng.gen_range(0..candidates.len())];
        knocked.push((sq, table.lift(sq)));
        table.pause(50, 400);
    }
    table.pause(15_000, 40_000);
    for (sq, cell) in knocked {
        table.set(sq, cell);
        table.pause(300, 1_500);
    }
    at.play_on(&mut table, pos, k);
    Some(at.case(table, None, at.game.sans.clone(), k))
}

/// An illegal move, completed by the opponent's first touch (Law 6.2a),
/// then noticed and taken back.
fn illegal_taken_back(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let MidGame { k, pos, mut table } = at.mid_game()?;
    let rng = &mut at.rng;
    let (piece, from, to, _) = illegal_shift(&pos, rng)?;
    table.lift(from);
    table.pause(200, 600);
    table.put(to, piece);
    // The opponent begins to reply (which completes the
    // move, Law 6.2a), notices, and the position is
    // restored.
    table.pause(1_000, 4_500);
    // Not a piece the moving piece could legally take from where it stood:
    // lifting that one may be the capture under way (the piece set down
    // short of its victim), not a reply.
    let victims: Vec<Square> = pos
        .legal_moves()
        .filter(|m| m.from() == from && m.is_capture())
        .map(|m| m.to())
        .collect();
    let own: Vec<Square> = pos
        .board()
        .by_color(!pos.turn())
        .into_iter()
        .filter(|&s| s != to && !victims.contains(&s))
        .collect();
    if own.is_empty() {
        return None;
    }
    let touched = own[rng.gen_range(0..own.len())];
    let cell = table.lift(touched);
    table.pause(300, 900);
    table.set(touched, cell);
    table.pause(2_000, 6_000);
    table.lift(to);
    table.pause(200, 600);
    table.put(from, piece);
    at.play_on(&mut table, pos.clone(), k);
    Some(at.case(table, Some(pos.turn()), at.game.sans.clone(), k))
}

/// An illegal move nobody notices: random legal play goes on after it.
fn illegal_stands(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let MidGame { k, pos, mut table } = at.mid_game()?;
    let rng = &mut at.rng;
    let (piece, from, to, board) =
        (0..8)
            .filter_map(|_| illegal_shift(&pos, rng))
            .find(|(_, _, _, b)| {
                pos.irregular(b.clone(), !pos.turn())
                    .is_some_and(|p| p.legal_moves().next().is_some())
            })?;
    let after = pos.irregular(board.clone(), !pos.turn())?;
    let pm = find_pseudo_move(&pos, &board)?;
    table.lift(from);
    table.pause(200, 600);
    table.put(to, piece);
    table.mark(|at| Truth::Ply { ply: k + 1, at });
    // Nobody notices: random legal play goes on.
    let mut line = Vec::new();
    let mut sans = at.game.sans[..k].to_vec();
    sans.push(pm.notation());
    let mut p = after.clone();
    for _ in 0..rng.gen_range(4..12) {
        let legal: Vec<Move> = p.legal_moves().collect();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.gen_range(0..legal.len())];
        sans.push(p.san(m));
        line.push(m);
        p = p.play(m);
    }
    play_line(&mut table, &mut at.profile, after, &line, k + 2);
    Some(at.case(table, Some(pos.turn()), sans, k))
}

/// A promotion to a queen left as a pawn while the opponent replies, then
/// exchanged by the arbiter (Law 7.5a).
fn unpromoted(at: &mut Inject<'_>) -> Option<FaultCase<Session>> {
    let (game, positions) = (at.game, &at.positions);
    let n = game.moves.len();
    // A promotion to a queen whose reply leaves the queen's square alone.
    let k = (0..n.saturating_sub(1)).find(|&i| {
        let m = game.moves[i];
        let reply = game.moves[i + 1];
        m.promotion() == Some(Role::Queen)
            && !reply.touched().contains(m.to())
            && !positions[i + 1].is_check()
    })?;
    let pos = positions[k].clone();
    let m = game.moves[k];
    let p = parts(&pos, m);
    let profile = &mut at.profile;
    let mut table = first_plies(game, k, at.seed, profile);
    profile.think(&mut table, &pos);
    if let Some(v) = p.victim {
        table.lift(v);
        table.pause(200, 500);
    }
    table.lift(p.from);
    table.pause(200, 500);
    table.put(p.to, p.piece);
    table.pause(2_000, 5_000);
    // The opponent replies while the pawn stands there.
    let after = positions[k + 1].clone();
    profile.play(&mut table, &after, game.moves[k + 1]);
    table.pause(2_000, 5_000);
    // The arbiter exchanges the pawn for a queen (Law 7.5a).
    table.lift(p.to);
    table.pause(300, 800);
    table.put(p.to, p.placed);
    table.mark(|at| Truth::Ply { ply: k + 1, at });
    table.mark(|at| Truth::Ply { ply: k + 2, at });
    let next = positions[k + 2].clone();
    play_line(&mut table, profile, next, &game.moves[k + 2..], k + 3);
    Some(at.case(table, Some(pos.turn()), game.sans.clone(), k))
}

fn finish(mut table: Table) -> Session {
    table.wait(5_000);
    table.into_session()
}

/// The board a session starts with, as cells (for tests that need it).
pub fn cells_of(board: &Board) -> [Cell; 64] {
    let mut cells = [Cell::Empty; 64];
    for (sq, p) in board.iter() {
        cells[sq as usize] = Cell::Piece(p);
    }
    cells
}

/// Ends a session the way many players report a result: both kings set on
/// centre squares (light squares: White won; dark: Black won; one of each:
/// a draw), a few seconds after the last move. As at real boards, a piece
/// standing on a centre square is often cleared off the board first (from
/// the square a king needs, or from another centre square on the way), and
/// now and then another piece is pushed aside by the hands. Returns `None`
/// when the centre lacks two squares of the needed colours free of kings.
pub fn kings_to_centre(
    session: &mut Session,
    last: &Position,
    result: &str,
    seed: u64,
) -> Option<()> {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x4b1c);
    let centre = [Square::D4, Square::D5, Square::E4, Square::E5];
    let board = last.board();
    if centre
        .iter()
        .any(|&s| board.piece_at(s).is_some_and(|p| p.role == Role::King))
    {
        return None;
    }
    let (a, b) = kings_squares(board, &centre, result)?;
    let (a, b) = if rng.gen_bool(0.5) { (a, b) } else { (b, a) };
    let white_king = board.king_of(Color::White)?;
    let black_king = board.king_of(Color::Black)?;
    let mut cells = cells_at_end(session);
    let mut t = session.readings.last().map_or(0, |(t, _)| *t) + rng.gen_range(3_000..20_000);
    let (wk, bk) = (cells[white_king as usize], cells[black_king as usize]);
    let mut set = |sq: Square, cell: Cell, t: &mut Millis, pause: Millis| {
        *t += pause;
        cells[sq as usize] = cell;
        session.readings.push((*t, crate::Sensed::Square(sq, cell)));
    };
    // Pieces in the kings' way leave the board before the kings come;
    // another centre piece is cleared along with them a third of the time.
    let clear = to_clear(board, &centre, [a, b], &mut rng);
    // A piece next to the centre pushed aside onto a free square (at most
    // one piece cleared or pushed besides the kings' squares, as at the
    // real board this habit was seen on).
    let push = if clear.len() < 2 && rng.gen_bool(0.15) {
        push_aside(last, &centre, &mut rng)
    } else {
        None
    };
    for &s in &clear {
        set(s, Cell::Empty, &mut t, rng.gen_range(200..900));
    }
    let first_white = rng.gen_bool(0.5);
    let order = if first_white {
        [(white_king, wk, a), (black_king, bk, b)]
    } else {
        [(black_king, bk, a), (white_king, wk, b)]
    };
    for (k, (from, king, to)) in order.into_iter().enumerate() {
        if from != to {
            set(from, Cell::Empty, &mut t, rng.gen_range(100..600));
            set(to, king, &mut t, rng.gen_range(150..700));
        }
        if k == 0
            && let Some((s, n)) = push
        {
            let piece = Cell::Piece(board.piece_at(s).expect("a piece to push"));
            set(s, Cell::Empty, &mut t, rng.gen_range(50..300));
            set(n, piece, &mut t, rng.gen_range(40..200));
        }
    }
    Some(())
}

/// The two centre squares the kings go to for `result` (light squares:
/// White won; dark: Black won; one of each: a draw), free squares first:
/// players clear a square only when they must.
fn kings_squares(board: &Board, centre: &[Square; 4], result: &str) -> Option<(Square, Square)> {
    let mut light: Vec<Square> = centre.iter().copied().filter(|s| s.is_light()).collect();
    let mut dark: Vec<Square> = centre.iter().copied().filter(|s| s.is_dark()).collect();
    light.sort_by_key(|&s| board.piece_at(s).is_some());
    dark.sort_by_key(|&s| board.piece_at(s).is_some());
    match result {
        "1-0" => Some((light[0], light[1])),
        "0-1" => Some((dark[0], dark[1])),
        "1/2-1/2" => Some((light[0], dark[0])),
        _ => None,
    }
}

/// The squares as they stand at the end of `session`.
fn cells_at_end(session: &Session) -> [Cell; 64] {
    let mut cells = *session.initial;
    for (_, r) in &session.readings {
        match r {
            crate::Sensed::Square(sq, c) => cells[*sq as usize] = *c,
            crate::Sensed::Dump(d) => cells = **d,
        }
    }
    cells
}

/// The pieces that leave the board before the kings come: those on the
/// kings' squares, and another centre piece a third of the time.
fn to_clear(
    board: &Board,
    centre: &[Square; 4],
    kings: [Square; 2],
    rng: &mut SmallRng,
) -> Vec<Square> {
    let mut clear: Vec<Square> = kings
        .into_iter()
        .filter(|&s| board.piece_at(s).is_some())
        .collect();
    for &s in centre {
        if !clear.contains(&s) && board.piece_at(s).is_some() && rng.gen_bool(0.33) {
            clear.push(s);
        }
    }
    clear
}

/// A piece next to the centre (not a king) and a free square beside it,
/// away from the centre: a piece the hands push aside. As with knocks, a
/// piece of the side to move never lands where it could legally move:
/// that would be a move.
fn push_aside(last: &Position, centre: &[Square], rng: &mut SmallRng) -> Option<(Square, Square)> {
    let board = last.board();
    let legal = |s: Square, n: Square| last.legal_moves().any(|m| m.from() == s && m.to() == n);
    let next_to_centre = |s: Square| {
        centre
            .iter()
            .any(|&c| crate::human::neighbours(c).any(|x| x == s))
    };
    let near: Vec<(Square, Square)> = Square::ALL
        .into_iter()
        .filter(|&s| {
            !centre.contains(&s)
                && next_to_centre(s)
                && board.piece_at(s).is_some_and(|p| p.role != Role::King)
        })
        .flat_map(|s| {
            crate::human::neighbours(s)
                .filter(move |&n| {
                    board.piece_at(n).is_none() && !centre.contains(&n) && !legal(s, n)
                })
                .map(move |n| (s, n))
        })
        .collect();
    (!near.is_empty()).then(|| near[rng.gen_range(0..near.len())])
}
