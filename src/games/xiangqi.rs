//! Xiangqi behind the game seam, over the rule engine of the
//! `boardcast-rules` crate (written from the xiangqi association's
//! competition rules, 2022; article numbers are that book's).
//!
//! The sensor board is the 9 x 10 points, named in ICCS (`a0`-`i9`, rank 0
//! on Red's side); letters are FEN's (`K A B N R C P`, upper case Red), `o`
//! for a piece of unknown colour. A capture on a board without piece
//! identity changes only its origin's occupancy: the search ranks such
//! explanations by the squares the readings touched (see
//! [`crate::track::search`]).

use boardcast_rules::xiangqi::notation::{iccs, parse_iccs, wxf};
use boardcast_rules::xiangqi::pgn::{self, GameResult, Record as Pgn};
use boardcast_rules::xiangqi::repetition::{
    MoveLimit, RepetitionKind, Tracker, Verdict as RuleVerdict,
};
use boardcast_rules::xiangqi::{self as xq, Kind, Outcome, Side as XSide};

use super::grid::{Grid, GridChange, Point, Points, Spec, Stone, find_change, sensor_cell};
use super::{
    Article, Game, GameColor, GameMove, GamePosition, Placement, Record, SquareSet, Start, Verdict,
    nearest_either_way,
};
use crate::event::{Alert, AlertKind, GameId, Millis, Side};
use crate::games::arbiter::{
    Completed, alert, displaced_message, displaced_side, made_evidence, setup_message,
    touch_message,
};
use crate::games::settle::SettleRule;
use crate::games::{Cell, Touch, put_back_touch};
use boardcast_protocols::reading::{Content, Square as Reading};

/// The xiangqi grid: 9 files by 10 ranks, Red on ranks 0-4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Points9x10;

impl Spec for Points9x10 {
    const FILES: u8 = 9;
    const RANKS: u8 = 10;
    type Color = XSide;

    fn color(letter: u8) -> Option<XSide> {
        match letter {
            b'K' | b'A' | b'B' | b'N' | b'R' | b'C' | b'P' => Some(XSide::Red),
            b'k' | b'a' | b'b' | b'n' | b'r' | b'c' | b'p' => Some(XSide::Black),
            _ => None,
        }
    }

    fn name(file: u8, rank: u8) -> String {
        format!("{}{rank}", char::from(b'a' + file))
    }
}

/// A point of the board.
pub type Square = Point<Points9x10>;
/// A placement on the board.
pub type Board = Grid<Points9x10>;
/// A piece as the board shows it.
pub type Piece = Stone<Points9x10>;

impl GameColor for XSide {
    fn index(self) -> usize {
        match self {
            XSide::Red => 0,
            XSide::Black => 1,
        }
    }
    fn other(self) -> XSide {
        XSide::other(self)
    }
    fn side(self) -> Side {
        match self {
            XSide::Red => Side::Red,
            XSide::Black => Side::Black,
        }
    }
}

/// The board point of a rule-engine point.
pub fn point(sq: xq::Square) -> Square {
    Point::new(sq.file() as u8, sq.rank() as u8).expect("on the board")
}

/// The rule-engine point of a board point.
pub fn square(p: Square) -> xq::Square {
    xq::Square::new(p.file() as i8, p.rank() as i8).expect("on the board")
}

fn stone(p: xq::Piece) -> Piece {
    Stone::new(p.fen_char() as u8)
}

fn board_of(pos: &xq::Position) -> Board {
    let mut b = Board::empty();
    for side in [XSide::Red, XSide::Black] {
        for (sq, p) in pos.pieces(side) {
            b.set_piece_at(point(sq), stone(p));
        }
    }
    b
}

/// A xiangqi position with its placement on the board.
#[derive(Clone, Debug)]
pub struct Position {
    pos: xq::Position,
    board: Board,
}

impl Position {
    /// The position `pos` of the rule engine.
    pub fn new(pos: xq::Position) -> Position {
        Position {
            board: board_of(&pos),
            pos,
        }
    }

    /// The start position.
    pub fn start() -> Position {
        Position::new(xq::Position::start())
    }

    /// The rule engine's position.
    pub fn rules(&self) -> &xq::Position {
        &self.pos
    }
}

impl GameMove for xq::Move {
    type Square = Square;
    type Set = Points<Points9x10>;
    fn from(&self) -> Square {
        point(self.from)
    }
    fn to(&self) -> Square {
        point(self.to)
    }
    fn touched(&self) -> Points<Points9x10> {
        Points::from(point(self.from)) | Points::from(point(self.to))
    }
    fn same_choice(&self, _other: &xq::Move) -> bool {
        true
    }
}

impl GamePosition for Position {
    type Board = Board;
    type Move = xq::Move;
    type Color = XSide;

    fn board(&self) -> &Board {
        &self.board
    }
    fn turn(&self) -> XSide {
        self.pos.turn()
    }
    fn legal_moves(&self) -> impl Iterator<Item = xq::Move> {
        self.pos.legal_moves().into_iter()
    }
    fn play(&self, m: &xq::Move) -> Position {
        Position::new(self.pos.after(*m).expect("a legal move"))
    }
    fn board_after(&self, m: &xq::Move) -> Board {
        let mut b = self.board.clone();
        let piece = b.piece_at(point(m.from)).expect("a piece moves");
        b.discard_piece_at(point(m.from));
        b.set_piece_at(point(m.to), piece);
        b
    }
    fn notation(&self, m: &xq::Move) -> String {
        wxf(&self.pos, *m)
    }
    fn id(&self, m: &xq::Move) -> String {
        iccs(*m)
    }
    fn fen(&self) -> String {
        self.pos.fen()
    }
    fn key(&self) -> u64 {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let mut h = DefaultHasher::new();
        self.pos.key().hash(&mut h);
        h.finish()
    }
}

/// Xiangqi as an event plays it: its move limit (Art. 6: the event fixes
/// the natural move limit; Art. 17: at most six of the claimant's checks
/// count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Xiangqi {
    /// The event's move limit.
    pub limit: MoveLimit,
}

fn color_name(c: XSide) -> &'static str {
    match c {
        XSide::Red => "Red",
        XSide::Black => "Black",
    }
}

/// "the red chariot", "a piece".
fn piece_name(p: Piece) -> String {
    let letter = p.letter();
    match Kind::from_letter(letter.to_ascii_uppercase()) {
        Some(kind) if letter != 'o' => {
            let side = if letter.is_ascii_uppercase() {
                "red"
            } else {
                "black"
            };
            format!("the {side} {}", kind.name())
        }
        _ => "a piece".into(),
    }
}

fn differences(expected: &Board, seen: &Board) -> Vec<String> {
    expected.differences(seen, piece_name)
}

/// Art. 16: a move that leaves one's own general in check (or facing the
/// other general) loses; Art. 20: moving a piece where it cannot go, or
/// two moves in a row, is a technical foul (the second loses, Art. 16).
const SELF_CHECK: &str = "16";
const FOUL: &str = "20";
const TOUCH: &str = "13";
/// Art. 16: a player whose time is used up loses.
const TIME_UP: &str = "16";
/// Art. 21: violations (pressing the clock without moving among them);
/// four in a game lose it (Art. 16).
const VIOLATION: &str = "21";

impl Game for Xiangqi {
    type Square = Square;
    type Set = Points<Points9x10>;
    type Color = XSide;
    type Piece = Piece;
    type Board = Board;
    type Move = xq::Move;
    type Position = Position;
    type Pseudo = GridChange<Points9x10>;
    type Referee = Tracker;

    fn game_id(&self) -> GameId {
        GameId::Xiangqi
    }
    fn square_count(&self) -> usize {
        90
    }
    fn square(&self, i: usize) -> Square {
        Point::from_index(i).expect("90 points")
    }
    fn index(&self, sq: Square) -> usize {
        sq.index()
    }
    fn start(&self) -> Position {
        Position::start()
    }

    fn turn_round(&self, sq: Square) -> Square {
        sq.turned()
    }

    fn detect_start(&self, raw: &Board) -> Option<Start<Position>> {
        Start::either_way(Position::start(), raw)
    }

    fn nearest_start(&self, raw: &Board) -> Option<(Board, Points<Points9x10>)> {
        nearest_either_way(Position::start().board().clone(), raw, 26)
    }

    /// The book has no article on setting up: `law` is null.
    fn setup_alert(&self, intended: &Board, raw: &Board) -> Alert {
        let (i, r) = intended.facing(raw, Position::start().board());
        alert(
            AlertKind::Setup,
            None,
            None,
            setup_message(&differences(&i, &r), ""),
        )
    }

    fn first_wins(&self) -> &'static str {
        "red-wins"
    }

    fn placement_text(&self, board: &Board) -> String {
        board.cells_text()
    }

    fn sensor_square(&self, sq: Reading) -> Option<Square> {
        Point::new(sq.file, sq.rank)
    }

    fn sensor_cell(&self, content: Content) -> Option<Cell<Piece>> {
        Some(sensor_cell(content))
    }

    /// Each ply sets one piece down on a square it did not occupy, so the
    /// squares the target newly occupies need as many plies, and each ply
    /// empties one square.
    fn feasible(&self, pos: &Position, target: &Board, plies: usize) -> bool {
        let d = pos.board().diff(target);
        let arrivals = d & target.occupied() & !pos.board().occupied();
        let departures = d & !target.occupied() & pos.board().occupied();
        arrivals.count() <= plies && departures.count() <= plies
    }

    /// A chariot or cannon moving along a line it could go on along may
    /// still be sliding.
    fn settle_ms(&self, rule: &SettleRule, pos: &Position, m: &xq::Move) -> Millis {
        let Some(piece) = pos.pos.piece_at(m.from) else {
            return rule.base_ms;
        };
        if !matches!(piece.kind, Kind::Chariot | Kind::Cannon) {
            return rule.base_ms;
        }
        let df = (m.to.file() - m.from.file()).signum();
        let dr = (m.to.rank() - m.from.rank()).signum();
        let next = xq::Square::new(m.to.file() + df, m.to.rank() + dr);
        match next {
            Some(sq) if pos.pos.piece_at(sq).is_none_or(|p| p.side != piece.side) => {
                rule.extendable_ms
            }
            _ => rule.base_ms,
        }
    }

    /// Next to the victim's point, or on the line between the piece and
    /// its victim (a chariot or cannon slid along the file or rank).
    fn short_of_capture(&self, m: &xq::Move, sq: Square) -> bool {
        let (from, to) = (point(m.from), point(m.to));
        let near = to.file().abs_diff(sq.file()) <= 1 && to.rank().abs_diff(sq.rank()) <= 1;
        let between = |a: u8, b: u8, x: u8| a.min(b) < x && x < a.max(b);
        let on_line = (from.file() == to.file()
            && sq.file() == from.file()
            && between(from.rank(), to.rank(), sq.rank()))
            || (from.rank() == to.rank()
                && sq.rank() == from.rank()
                && between(from.file(), to.file(), sq.file()));
        near || on_line
    }

    fn ranks_by_evidence(&self) -> bool {
        true
    }

    fn holds_first_move(&self) -> bool {
        true
    }

    fn referee(&self, record: &Record<Self>) -> Tracker {
        let from = record.plies().iter().rposition(|p| p.m.is_none());
        let start = from.map_or(record.start(), |i| &record.plies()[i].after);
        let mut t = Tracker::new(start.pos.clone(), self.limit);
        let first = from.map_or(0, |i| i + 1);
        for p in &record.plies()[first..] {
            if let Some(m) = p.m {
                let _ = t.push(m);
            }
        }
        t
    }

    /// Repetition rulings (perpetual check, perpetual chase: alerts with
    /// the cycle, never a result, Art. 16/17), the move limit (Art. 17),
    /// mate and stalemate (both lose, Art. 16).
    fn judge(
        &self,
        referee: &mut Tracker,
        record: &Record<Self>,
        _has_moves: bool,
        ended: bool,
    ) -> Vec<Verdict> {
        let Some(m) = record.plies().last().and_then(|p| p.m) else {
            return Vec::new();
        };
        let Ok(verdicts) = referee.push(m) else {
            return Vec::new();
        };
        let mut out: Vec<Verdict> = verdicts
            .into_iter()
            .map(|v| match v {
                RuleVerdict::Repetition(r) => {
                    let kind = match r.kind {
                        RepetitionKind::PerpetualCheck => AlertKind::PerpetualCheck,
                        RepetitionKind::PerpetualChase => AlertKind::PerpetualChase,
                        RepetitionKind::Repetition => AlertKind::Repetition,
                    };
                    Verdict::Alert(alert(
                        kind,
                        r.side.map(GameColor::side),
                        Some(r.law),
                        r.message(),
                    ))
                }
                RuleVerdict::MoveLimit(c) => Verdict::Alert(alert(
                    AlertKind::DrawClaimable,
                    Some(c.side.side()),
                    Some("17"),
                    format!(
                        "{} may claim the move limit ({} moves counted since ply {}, Art. 17).",
                        color_name(c.side),
                        c.counted,
                        c.since_ply
                    ),
                )),
            })
            .collect();
        let (winner, how) = match referee.position().outcome() {
            Outcome::Ongoing => return out,
            Outcome::Checkmate { winner } => (winner, "checkmate"),
            Outcome::Stalemate { winner } => (winner, "no legal move"),
        };
        if !ended {
            out.push(Verdict::End {
                result: GameResult::Win(winner).token().to_owned(),
                reason: format!("{how} (Art. 16)"),
            });
        }
        out
    }

    /// One piece moved (taking what stood on its destination, on a board
    /// that identifies pieces).
    fn find_pseudo(&self, pos: &Position, target: &Board) -> Option<GridChange<Points9x10>> {
        find_change(pos.board(), target, pos.turn(), |_, _, _, _| false)
    }

    fn pseudo_board(&self, pos: &Position, m: &GridChange<Points9x10>, _target: &Board) -> Board {
        let mut b = pos.board().clone();
        b.discard_piece_at(m.from);
        b.set_piece_at(m.to, m.placed);
        b
    }

    fn pseudo_text(&self, _pos: &Position, m: &GridChange<Points9x10>) -> (String, String) {
        let id = format!("{}{}", m.from, m.to);
        (id.clone(), id)
    }

    fn illegal_move_alert(
        &self,
        before: &Position,
        m: &GridChange<Points9x10>,
        count: u32,
        _ply: usize,
        completed: Completed,
    ) -> Alert {
        let mover = m.mover;
        let (from, to) = (square(m.from), square(m.to));
        let (what, law) = if mover != before.turn() {
            (
                format!(
                    "it was {}'s move (two moves in a row)",
                    color_name(before.turn())
                ),
                FOUL,
            )
        } else {
            let mut reach = Vec::new();
            before.pos.pseudo_moves_from(from, &mut reach);
            let kind = before.pos.piece_at(from).map_or("piece", |p| p.kind.name());
            if reach.contains(&xq::Move { from, to }) {
                (
                    format!(
                        "it leaves the {} general in check or facing the other general",
                        color_name(mover).to_lowercase()
                    ),
                    SELF_CHECK,
                )
            } else {
                (format!("a {kind} cannot move from {from} to {to}"), FOUL)
            }
        };
        let evidence = made_evidence(completed, color_name(mover), color_name(mover.other()));
        let consequence = if law == SELF_CHECK {
            format!("{} loses the game (Art. 16).", color_name(mover))
        } else if count == 1 {
            "A technical foul (Art. 20); a second one in this game loses it (Art. 16).".to_owned()
        } else {
            format!(
                "A second technical foul: {} loses the game (Art. 16).",
                color_name(mover)
            )
        };
        alert(
            AlertKind::IllegalMove,
            Some(mover.side()),
            Some(law),
            format!(
                "{} played {from}{to}, an illegal move: {what} (Art. {law}); {evidence}. {consequence}",
                color_name(mover)
            ),
        )
    }

    fn irregular(&self, before: &Position, board: Board, turn: XSide) -> Option<Position> {
        let mut pos = xq::Position::empty(turn);
        pos.halfmoves = before.pos.halfmoves + 1;
        pos.fullmoves = before.pos.fullmoves + u32::from(turn == XSide::Red);
        for (p, piece) in board.pieces() {
            let side = Points9x10::color(piece.letter() as u8)?;
            let kind = Kind::from_letter(piece.letter().to_ascii_uppercase())?;
            pos.set(square(p), Some(xq::Piece { side, kind }));
        }
        (pos.general(XSide::Red).is_some() && pos.general(XSide::Black).is_some())
            .then(|| Position::new(pos))
    }

    /// A side without its general, or with more pieces than it began
    /// with: no legal play reaches that (the book has no article).
    fn illegal_position_alert(&self, board: &Board) -> Option<Alert> {
        let mut problems = Vec::new();
        for side in [XSide::Red, XSide::Black] {
            let generals = board
                .pieces()
                .filter(|(_, p)| {
                    Points9x10::color(p.letter() as u8) == Some(side)
                        && p.letter().eq_ignore_ascii_case(&'k')
                })
                .count();
            let pieces = board.by_color(side).count();
            if board.identifies() && generals != 1 {
                problems.push(format!("{} has {generals} generals", color_name(side)));
            }
            if pieces > 16 {
                problems.push(format!("{} has {pieces} pieces", color_name(side)));
            }
        }
        (!problems.is_empty()).then(|| {
            alert(
                AlertKind::IllegalPosition,
                None,
                None,
                format!(
                    "The board shows a position no legal play reaches: {} (placement {}).",
                    problems.join(", "),
                    board.cells_text()
                ),
            )
        })
    }

    /// The book has no article on displaced pieces: `law` is null.
    fn misplaced_alert(&self, pos: &Position, board: &Board) -> Alert {
        let side = displaced_side(pos.board().diff(board).into_iter().map(|sq| {
            let color = |b: &Board| {
                b.piece_at(sq)
                    .and_then(|p| Points9x10::color(p.letter() as u8))
            };
            (color(pos.board()), color(board))
        }));
        alert(
            AlertKind::Misplaced,
            side.map(GameColor::side),
            None,
            displaced_message(
                side.map(color_name),
                &differences(pos.board(), board),
                &pos.fen(),
                "",
            ),
        )
    }

    /// Art. 13: a piece touched must be moved (touching one's own piece
    /// that cannot move is a technical foul, Art. 20).
    fn touch_alerts(
        &self,
        pos: &Position,
        m: &xq::Move,
        touches: &[Touch<Self>],
        touch_ms: Millis,
    ) -> Vec<Alert> {
        let mover = pos.turn();
        let touches: Vec<&Touch<Self>> = touches
            .iter()
            .filter(|t| Points9x10::color(t.piece.letter() as u8) == Some(mover))
            .collect();
        let Some(t) = put_back_touch(pos, m, &touches, touch_ms) else {
            return Vec::new();
        };
        let name = pos
            .pos
            .piece_at(square(t.sq))
            .map_or("piece", |p| p.kind.name());
        vec![alert(
            AlertKind::TouchMove,
            Some(mover.side()),
            Some(TOUCH),
            touch_message(
                color_name(mover),
                &format!("the {name}"),
                t.sq,
                &wxf(&pos.pos, *m),
                "Art. 13",
            ),
        )]
    }

    /// PGN with `[Variant "xiangqi"]`, WXF movetext. After an illegal
    /// move that stood, the record starts from the position it left (FEN
    /// tag).
    fn record_text(
        &self,
        start: &str,
        plies: &[(String, String)],
        comments: &[Option<String>],
        result: Option<&str>,
    ) -> String {
        let Ok(mut pos) = xq::Position::from_fen(start) else {
            return String::new();
        };
        let mut rec = Pgn {
            tags: Vec::new(),
            start: pos.clone(),
            moves: Vec::new(),
            result: result
                .and_then(GameResult::from_token)
                .unwrap_or(GameResult::Unfinished),
        };
        // The comments of the moves written (a record restarted after an
        // illegal move drops the earlier ones with their moves).
        let mut kept = Vec::new();
        for (i, (id, after)) in plies.iter().enumerate() {
            let legal = parse_iccs(id).ok().filter(|m| pos.is_legal(*m));
            let Ok(next) = xq::Position::from_fen(after) else {
                break;
            };
            match legal {
                Some(m) => {
                    rec.moves.push(m);
                    kept.push(comments.get(i).cloned().flatten());
                }
                None => {
                    rec.start = next.clone();
                    rec.moves.clear();
                    kept.clear();
                }
            }
            pos = next;
        }
        pgn::write_with_comments(&rec, &kept).unwrap_or_default()
    }

    fn article(&self, a: Article) -> Option<&'static str> {
        match a {
            Article::IllegalMove => Some(FOUL),
            // Art. 16: a player whose time is used up loses; art. 21: a
            // press of the clock without a move is a violation.
            Article::LostOnTime => Some(TIME_UP),
            Article::ClockPress => Some(VIOLATION),
            Article::IllegalPosition | Article::Setup | Article::Displaced => None,
        }
    }

    fn cite(&self, article: &str) -> String {
        format!("Art. {article}")
    }

    fn parse_position(&self, fen: &str) -> Option<Position> {
        xq::Position::from_fen(fen).ok().map(Position::new)
    }

    fn position_with(&self, board: &Board, first_to_move: bool) -> Option<Position> {
        // A FEN of the board, rank 9 down, Red upper case.
        let mut ranks = Vec::with_capacity(10);
        for rank in (0..10u8).rev() {
            let mut text = String::new();
            let mut run = 0;
            for file in 0..9u8 {
                match Square::new(file, rank).and_then(|p| board.piece_at(p)) {
                    Some(stone) if stone.is_known() => {
                        if run > 0 {
                            text += &run.to_string();
                            run = 0;
                        }
                        text.push(stone.letter());
                    }
                    Some(_) => return None,
                    None => run += 1,
                }
            }
            if run > 0 {
                text += &run.to_string();
            }
            ranks.push(text);
        }
        let turn = if first_to_move { 'w' } else { 'b' };
        let pos = xq::Position::from_fen(&format!("{} {turn} - - 0 1", ranks.join("/"))).ok()?;
        // Both generals, and the side not to move not in check.
        let generals = [XSide::Red, XSide::Black]
            .map(|side| pos.pieces(side).any(|(_, p)| p.kind == xq::Kind::General));
        (generals == [true, true]).then(|| Position::new(pos))
    }
}
// Draughts and xiangqi boards are read alike: a whole board, then the
// squares that changed.
super::diffing::diffed!(Xiangqi);
