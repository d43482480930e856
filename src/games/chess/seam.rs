//! Chess behind the game seam: [`Chess`] implements [`Game`], and the
//! chess vocabulary (shakmaty's squares, bitboards, colours, pieces and
//! placement, this module's [`Position`] and [`Move`]) implements the small
//! traits the generic reconstructor reads them through. Every method here
//! delegates to the chess code it was written as, so the reconstructor
//! behaves exactly as it did before the seam.

use super::irregular::{PseudoMove, find_pseudo_move, illegality, impossibility};
use super::laws::Law;
use super::{
    Bitboard, Board, Color, Game, Move, Piece, Position, PositionOutcome, Role, Square, arbiter,
    board_fen, detect_start, diff, rotated,
};
use crate::event::{Alert, AlertKind, GameId, Millis, Side};
use crate::games::arbiter::Completed;
use crate::games::chess::Variant;
use crate::games::settle::SettleRule;
use crate::games::{
    self, Article, Change, GameColor, GameMove, GamePiece, GamePosition, Placement, SquareSet,
    Start, Verdict,
};
use crate::games::{Cell, Touch, put_back_touch};
use boardcast_protocols::reading::{Content, Square as Reading};

/// Chess as an event plays it: which start positions begin a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Chess {
    /// Standard, Chess960 or either.
    pub variant: Variant,
}

impl Chess {
    /// Chess with the start positions `variant` allows.
    pub fn new(variant: Variant) -> Chess {
        Chess { variant }
    }
}

impl SquareSet<Square> for Bitboard {
    fn contains(self, sq: Square) -> bool {
        Bitboard::contains(self, sq)
    }
    fn add(&mut self, sq: Square) {
        Bitboard::add(self, sq);
    }
    fn discard(&mut self, sq: Square) {
        Bitboard::discard(self, sq);
    }
    fn count(self) -> usize {
        Bitboard::count(self)
    }
    fn is_empty(self) -> bool {
        Bitboard::is_empty(self)
    }
    fn any(self) -> bool {
        Bitboard::any(self)
    }
}

impl GameColor for Color {
    fn index(self) -> usize {
        self as usize
    }
    fn other(self) -> Color {
        Color::other(self)
    }
    fn side(self) -> Side {
        Side::from(self)
    }
}

impl GamePiece for Piece {
    type Color = Color;
    fn color(self) -> Option<Color> {
        Some(self.color)
    }
}

impl Placement for Board {
    type Square = Square;
    type Piece = Piece;
    type Color = Color;
    type Set = Bitboard;

    fn empty() -> Board {
        Board::empty()
    }
    fn piece_at(&self, sq: Square) -> Option<Piece> {
        Board::piece_at(self, sq)
    }
    fn set_piece_at(&mut self, sq: Square, piece: Piece) {
        Board::set_piece_at(self, sq, piece);
    }
    fn discard_piece_at(&mut self, sq: Square) {
        Board::discard_piece_at(self, sq);
    }
    fn occupied(&self) -> Bitboard {
        Board::occupied(self)
    }
    fn by_color(&self, color: Color) -> Bitboard {
        Board::by_color(self, color)
    }
    fn diff(&self, other: &Board) -> Bitboard {
        diff(self, other)
    }
    fn matches(&self, other: &Board) -> bool {
        self == other
    }
    fn agrees(expected: Option<Piece>, seen: Option<Piece>) -> bool {
        expected == seen
    }
    fn rotated(&self) -> Board {
        rotated(self)
    }
}

impl GameMove for Move {
    type Square = Square;
    type Set = Bitboard;
    fn from(&self) -> Square {
        Move::from(*self)
    }
    fn to(&self) -> Square {
        Move::to(*self)
    }
    fn touched(&self) -> Bitboard {
        Move::touched(*self)
    }
    fn same_choice(&self, other: &Move) -> bool {
        self.promotion() == other.promotion()
    }
}

impl GamePosition for Position {
    type Board = Board;
    type Move = Move;
    type Color = Color;

    fn board(&self) -> &Board {
        Position::board(self)
    }
    fn turn(&self) -> Color {
        Position::turn(self)
    }
    fn legal_moves(&self) -> impl Iterator<Item = Move> {
        Position::legal_moves(self)
    }
    fn play(&self, m: &Move) -> Position {
        Position::play(self, *m)
    }
    fn board_after(&self, m: &Move) -> Board {
        Position::board_after(self, *m)
    }
    fn notation(&self, m: &Move) -> String {
        self.san(*m)
    }
    fn notation_known(
        &self,
        m: &Move,
        legal: &[Move],
        after: &Position,
        after_has_moves: bool,
    ) -> String {
        self.san_known(*m, legal, after, after_has_moves)
    }
    fn id(&self, m: &Move) -> String {
        self.uci(*m)
    }
    fn fen(&self) -> String {
        Position::fen(self)
    }
    fn key(&self) -> u64 {
        self.repetition_key()
    }
}

impl Change for PseudoMove {
    type Square = Square;
    type Piece = Piece;
    type Color = Color;
    fn mover(&self) -> Color {
        self.piece.color
    }
    fn piece(&self) -> Piece {
        self.piece
    }
    fn from(&self) -> Square {
        self.from
    }
    fn to(&self) -> Square {
        self.to
    }
    fn placed(&self) -> Piece {
        self.placed
    }
    fn taken(&self) -> Vec<(Square, Piece)> {
        self.captured.into_iter().collect()
    }
    fn compound(&self) -> bool {
        self.rook.is_some()
    }
}

/// How many times the current position has stood on the board in this
/// game (Law 9.2: same placement, side to move, castling and en passant
/// possibilities), counting now. Only positions since the last capture or
/// pawn move can repeat.
pub fn repetitions(game: &Game) -> usize {
    let key = game
        .plies()
        .last()
        .map_or_else(|| game.start().repetition_key(), |p| p.key);
    let reversible = game.position().halfmoves() as usize;
    let n = game.len();
    let earliest = n.saturating_sub(reversible);
    (earliest..=n)
        .filter(|&ply| {
            let k = if ply == 0 {
                game.start().repetition_key()
            } else {
                game.plies()[ply - 1].key
            };
            k == key
        })
        .count()
}

/// The centre squares of the kings-in-the-centre result signal.
const CENTRE: [Square; 4] = [Square::D4, Square::D5, Square::E4, Square::E5];

impl games::Game for Chess {
    type Square = Square;
    type Set = Bitboard;
    type Color = Color;
    type Piece = Piece;
    type Board = Board;
    type Move = Move;
    type Position = Position;
    type Pseudo = PseudoMove;
    type Referee = ();

    fn game_id(&self) -> GameId {
        GameId::Chess
    }

    fn square_count(&self) -> usize {
        64
    }

    fn square(&self, i: usize) -> Square {
        Square::new(i as u32)
    }

    fn index(&self, sq: Square) -> usize {
        sq as usize
    }

    fn start(&self) -> Position {
        Position::standard()
    }

    fn turn_round(&self, sq: Square) -> Square {
        sq.flip_vertical().flip_horizontal()
    }

    fn detect_start(&self, raw: &Board) -> Option<Start<Position>> {
        detect_start(raw)
            .filter(|s| match self.variant {
                Variant::Auto | Variant::Chess960 => true,
                Variant::Standard => !s.position.is_chess960(),
            })
            .map(|s| Start {
                position: s.position,
                rotated: Some(s.rotated),
            })
    }

    fn nearest_start(&self, raw: &Board) -> Option<(Board, Bitboard)> {
        arbiter::nearest_start(raw, self.variant != Variant::Standard)
    }

    fn setup_alert(&self, intended: &Board, raw: &Board) -> Alert {
        arbiter::setup(intended, raw)
    }

    fn parse_position(&self, fen: &str) -> Option<Position> {
        Position::from_fen(fen, self.variant == Variant::Chess960)
            .or_else(|| Position::from_fen(fen, true))
    }

    fn chess960(&self, start: &Position) -> Option<bool> {
        Some(start.is_chess960())
    }

    fn placement_text(&self, board: &Board) -> String {
        board_fen(board)
    }

    fn sensor_square(&self, sq: Reading) -> Option<Square> {
        (sq.file < 8 && sq.rank < 8)
            .then(|| Square::new(u32::from(sq.rank) * 8 + u32::from(sq.file)))
    }

    fn sensor_cell(&self, content: Content) -> Option<Cell> {
        match content {
            Content::Empty => Some(Cell::Empty),
            Content::Piece(p) => Piece::from_char(p.letter()).map(Cell::Piece),
            Content::Token(t) => Some(games::token_cell(t)),
            Content::Occupied => None,
        }
    }

    /// Each ply puts exactly one piece of its mover's colour on a square
    /// (two when castling), so the squares where the target shows a piece
    /// of colour `c` that `pos` does not have there need that many plies of
    /// `c`. Each ply empties at most one square, two when castling or
    /// taking en passant.
    fn feasible(&self, pos: &Position, target: &Board, plies: usize) -> bool {
        let d = diff(pos.board(), target);
        let mover = pos.turn();
        for color in Color::ALL {
            let arrivals = (d & target.by_color(color)).count();
            let own_plies = if color == mover {
                plies.div_ceil(2)
            } else {
                plies / 2
            };
            let castle = usize::from(pos.castling_rooks(color).any());
            if arrivals > own_plies + castle {
                return false;
            }
        }
        let departures = (d & !target.occupied() & pos.board().occupied()).count();
        let slack = 2 * usize::from(pos.any_castling_rights()) + 1;
        departures <= plies + slack
    }

    fn settle_ms(&self, rule: &SettleRule, pos: &Position, m: &Move) -> Millis {
        rule.for_move(pos, *m)
    }

    fn may_begin_signal(&self, _pos: &Position, m: &Move) -> bool {
        crate::games::chess::settle::steps_into_centre(*m)
    }

    fn referee(&self, _record: &Game) {}

    /// Game-end and draw reports after a ply (Laws 5.1, 5.2, 9.2, 9.3,
    /// 9.6).
    fn judge(&self, _referee: &mut (), game: &Game, has_moves: bool, ended: bool) -> Vec<Verdict> {
        let mut out = Vec::new();
        let pos = game.position();
        let end = |result: &str, reason: &str| Verdict::End {
            result: result.into(),
            reason: reason.into(),
        };
        if let Some(outcome) = pos.outcome_known(has_moves) {
            if !ended {
                // None of these freezes the record (see `Verdict::End`).
                out.push(match outcome {
                    PositionOutcome::Checkmate { winner } => end(
                        if winner == Color::White { "1-0" } else { "0-1" },
                        "checkmate",
                    ),
                    PositionOutcome::Stalemate => end("1/2-1/2", "stalemate"),
                    PositionOutcome::DeadPosition => end("1/2-1/2", "dead position"),
                });
            }
            return out;
        }
        let reps = repetitions(game);
        let halfmoves = pos.halfmoves();
        let info = |kind, law: Law, message: String| {
            Verdict::Alert(arbiter::alert(kind, None, Some(law), message))
        };
        if reps >= 5 && !ended {
            out.push(info(
                AlertKind::Fivefold,
                Law::Fivefold,
                "The same position has now stood five times: the game is drawn (Law 9.6a). The arbiter must step in.".into(),
            ));
            out.push(end("1/2-1/2", "fivefold repetition"));
        } else if halfmoves >= 150 && !ended {
            out.push(info(
                AlertKind::SeventyFiveMoves,
                Law::SeventyFiveMoves,
                "Seventy-five moves by each player without a capture or pawn move: the game is drawn (Law 9.6b). The arbiter must step in.".into(),
            ));
            out.push(end("1/2-1/2", "75-move rule"));
        } else {
            if reps == 3 {
                out.push(info(
                    AlertKind::Threefold,
                    Law::Threefold,
                    format!(
                        "The same position has stood three times ({}): a draw may be claimed (Law 9.2).",
                        pos.fen()
                    ),
                ));
            }
            if halfmoves == 100 {
                out.push(info(
                    AlertKind::FiftyMoves,
                    Law::FiftyMoves,
                    "Fifty moves by each player without a capture or pawn move: a draw may be claimed (Law 9.3).".into(),
                ));
            }
        }
        out
    }

    fn find_pseudo(&self, pos: &Position, target: &Board) -> Option<PseudoMove> {
        find_pseudo_move(pos, target)
    }

    fn pseudo_board(&self, _pos: &Position, _m: &PseudoMove, target: &Board) -> Board {
        // A chess pseudo-move is found only when the changes are exactly
        // its own: the board it makes is the one it was found on.
        target.clone()
    }

    fn pseudo_text(&self, _pos: &Position, m: &PseudoMove) -> (String, String) {
        (m.notation(), m.uci())
    }

    fn illegal_move_alert(
        &self,
        before: &Position,
        m: &PseudoMove,
        count: u32,
        ply: usize,
        completed: Completed,
    ) -> Alert {
        let why = illegality(before, m);
        arbiter::illegal_move(before, m, &why, count, ply, completed)
    }

    fn irregular(&self, before: &Position, board: Board, turn: Color) -> Option<Position> {
        before.irregular(board, turn)
    }

    fn illegal_position_alert(&self, board: &Board) -> Option<Alert> {
        impossibility(board).map(|problem| arbiter::illegal_position(&problem, board))
    }

    fn misplaced_alert(&self, pos: &Position, board: &Board) -> Alert {
        arbiter::misplaced(pos, board)
    }

    /// Touch-move alerts (Laws 4.3a and 4.4b).
    fn touch_alerts(
        &self,
        pos: &Position,
        m: &Move,
        touches: &[Touch<Chess>],
        touch_ms: Millis,
    ) -> Vec<Alert> {
        let mut out = Vec::new();
        if touches.is_empty() {
            return out;
        }
        let mover = pos.turn();
        let touches: Vec<&Touch<Chess>> =
            touches.iter().filter(|t| t.piece.color == mover).collect();
        if let Some(rook) = m.castling_rook() {
            let first = touches.iter().find(|t| t.sq == rook || t.sq == m.from());
            if first.is_some_and(|t| t.sq == rook) {
                out.push(arbiter::rook_first(mover, rook, &pos.san(*m)));
            }
            return out;
        }
        if let Some(t) = put_back_touch(pos, m, &touches, touch_ms) {
            out.push(arbiter::touch_move(mover, t.piece, t.sq, &pos.san(*m)));
        }
        out
    }

    fn article(&self, a: Article) -> Option<&'static str> {
        Some(
            match a {
                Article::IllegalPosition => Law::IllegalPosition,
                Article::Setup => Law::Setup,
                Article::Displaced => Law::Displaced,
                Article::IllegalMove => Law::IllegalMove,
                Article::LostOnTime => Law::FlagFall,
                Article::ClockPress => Law::ClockPress,
            }
            .article(),
        )
    }

    fn cite(&self, article: &str) -> String {
        format!("Law {article}")
    }

    /// The kings-in-the-centre result signal: both kings on d4, d5, e4 or
    /// e5 and every other piece where the game (or the game less its last
    /// one or two plies, when a king move into the centre was published)
    /// has it. Both kings on light squares: White wins; both on dark
    /// squares: Black wins; one of each: a draw. Returns the plies to
    /// withdraw and the result.
    fn result_signal(&self, game: &Game, target: &Board) -> Option<(usize, &'static str)> {
        let kings = target.by_role(Role::King);
        let centre = CENTRE
            .iter()
            .fold(Bitboard::EMPTY, |b, &sq| b | Bitboard::from(sq));
        if kings.count() != 2 || !(kings & !centre).is_empty() {
            return None;
        }
        let without_kings = |b: &Board| {
            let mut b = b.clone();
            for sq in b.by_role(Role::King) {
                b.discard_piece_at(sq);
            }
            b
        };
        let rest = without_kings(target);
        // Two kings on the centre squares never stand so in play (the
        // squares touch), so the rest of the board need not match the
        // game exactly: players clear the centre for the kings, or knock
        // a piece, while they set the kings down. Any piece may leave the
        // centre, at most two others change, none comes from nowhere; the
        // closest position wins.
        let changes = |b: &Board| {
            let was = without_kings(b);
            let changed = diff(&was, &rest);
            let gone = changed & was.occupied();
            let came = changed & rest.occupied();
            ((gone & !centre).count() <= 2 && came.count() <= gone.count())
                .then_some(changed.count())
        };
        let (plies, _) = (0..=game.len().min(2))
            .filter(|&back| {
                back == 0
                    || game.plies()[game.len() - back..]
                        .iter()
                        .all(|p| p.m.is_some_and(|m| m.role() == Role::King))
            })
            .filter_map(|back| Some((back, changes(game.position_at(game.len() - back).board())?)))
            .min_by_key(|&(_, n)| n)?;
        let light = kings.into_iter().filter(|s| s.is_light()).count();
        let result = match light {
            2 => "1-0",
            0 => "0-1",
            _ => "1/2-1/2",
        };
        Some((plies, result))
    }

    /// Next to the victim (its square, or the pawn's taken en passant),
    /// or on the line the piece travels.
    fn short_of_capture(&self, m: &Move, sq: Square) -> bool {
        let victim = if m.is_en_passant() {
            Square::from_coords(m.to().file(), m.from().rank())
        } else {
            m.to()
        };
        m.is_capture()
            && (sq.distance(victim) <= 1
                || shakmaty::attacks::between(m.from(), m.to()).contains(sq))
    }

    /// Not a promotion: the new piece is what the reply often takes, and a
    /// reply read while the promotion waits can lose which piece it was.
    fn waits_short_of_capture(&self, _pos: &Position, m: &Move) -> bool {
        m.promotion().is_none()
    }

    /// A king stepping onto a centre square.
    fn signal_move(&self, m: &Move) -> bool {
        m.role() == Role::King && !m.is_castle() && CENTRE.contains(&m.to())
    }

    /// A king set on a centre square (d4, d5, e4, e5), with another piece
    /// moved or not (castling never ends there: a piece pushed aside while
    /// the kings are set down is no castling rook).
    fn signal_pseudo(&self, m: &PseudoMove) -> bool {
        m.piece.role == Role::King && CENTRE.contains(&m.to)
    }

    fn signal_pieces(&self, board: &Board) -> Bitboard {
        board.by_role(Role::King)
    }
}
