//! English draughts behind the game seam, over the rule engine of the
//! `boardcast-rules` crate (written from the project's rule book, a
//! translation of the WCDF rules; article numbers are that book's).
//!
//! The sensor board is the whole 8 x 8 board ([`Board`]: a piece can be
//! knocked onto a light square); squares are named by their number 1-32 as
//! the book numbers them (light squares by their coordinates). Letters are
//! the open protocol's: `M`/`K` for Black (the book's red, the first
//! player), `m`/`k` for White, `o` for a piece of unknown colour. A board
//! that identifies pieces may keep reporting a man on a crowned square, so
//! a sensor letter agrees with any piece of its colour.

use std::hash::{DefaultHasher, Hash, Hasher};

use boardcast_rules::draughts::{
    self as dr, Classification, Color, Game as Rules, Law, Outcome, PdnGame, PseudoMove as Seen,
    Verdict as RuleVerdict, classify,
};

use super::grid::{Grid, GridChange, Point, Points, Spec, Stone, find_change, sensor_cell};
use super::{
    Article, Game, GameColor, GameMove, GamePosition, Placement, Record, SquareSet, Start, Verdict,
    nearest_either_way,
};
use crate::event::{Alert, AlertKind, GameId, Millis, Side};
use crate::games::arbiter::{
    Completed, alert, displaced_message, displaced_side, illegal_move_opening, made_evidence,
    setup_message, touch_message,
};
use crate::games::settle::SettleRule;
use crate::games::{Cell, Touch, put_back_touch};
use boardcast_protocols::reading::{Content, Square as Reading};

/// The draughts sensor grid: 8 x 8, Black on ranks 1-3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cells;

impl Spec for Cells {
    const FILES: u8 = 8;
    const RANKS: u8 = 8;
    type Color = Color;

    fn color(letter: u8) -> Option<Color> {
        match letter {
            b'M' | b'K' => Some(Color::Black),
            b'm' | b'k' => Some(Color::White),
            _ => None,
        }
    }

    fn agrees(expected: u8, seen: u8) -> bool {
        Self::color(expected) == Self::color(seen)
    }

    fn name(file: u8, rank: u8) -> String {
        match dr::Square::from_file_rank(file, rank) {
            Some(sq) => sq.number().to_string(),
            None => format!("{}{}", char::from(b'a' + file), rank + 1),
        }
    }
}

/// A square of the sensor board.
pub type Square = Point<Cells>;
/// A placement on the sensor board.
pub type Board = Grid<Cells>;
/// A piece as the sensor board shows it.
pub type Piece = Stone<Cells>;

impl GameColor for Color {
    fn index(self) -> usize {
        Color::index(self)
    }
    fn other(self) -> Color {
        self.opponent()
    }
    fn side(self) -> Side {
        match self {
            Color::Black => Side::Black,
            Color::White => Side::White,
        }
    }
}

/// The sensor square of a playing square.
pub fn point(sq: dr::Square) -> Square {
    Point::new(sq.file(), sq.rank()).expect("playing squares are on the board")
}

/// The playing square of a sensor square, if it is one.
pub fn square(p: Square) -> Option<dr::Square> {
    dr::Square::from_file_rank(p.file(), p.rank())
}

/// The open protocol's letter for a draughts piece: `M`/`K` for Black
/// (the first player), `m`/`k` for White.
pub fn letter(p: dr::Piece) -> char {
    let c = if p.is_king() { 'K' } else { 'M' };
    match p.color {
        Color::Black => c,
        Color::White => c.to_ascii_lowercase(),
    }
}

fn stone(p: dr::Piece) -> Piece {
    Stone::new(letter(p) as u8)
}

fn board_of(pos: &dr::Position) -> Board {
    let mut b = Board::empty();
    for (sq, p) in pos.pieces() {
        b.set_piece_at(point(sq), stone(p));
    }
    b
}

/// A draughts position with its placement on the sensor board.
#[derive(Clone, Debug)]
pub struct Position {
    pos: dr::Position,
    board: Board,
}

impl Position {
    /// The position `pos` of the rule engine.
    pub fn new(pos: dr::Position) -> Position {
        Position {
            board: board_of(&pos),
            pos,
        }
    }

    /// The start position.
    pub fn start() -> Position {
        Position::new(dr::Position::start())
    }

    /// The rule engine's position.
    pub fn rules(&self) -> &dr::Position {
        &self.pos
    }
}

impl GameMove for dr::Move {
    type Square = Square;
    type Set = Points<Cells>;
    fn from(&self) -> Square {
        point(dr::Move::from(self))
    }
    fn to(&self) -> Square {
        point(dr::Move::to(self))
    }
    fn touched(&self) -> Points<Cells> {
        let mut set = Points::from(GameMove::from(self));
        set.add(GameMove::to(self));
        for &c in self.captured() {
            set.add(point(c));
        }
        set
    }
    fn same_choice(&self, _other: &dr::Move) -> bool {
        true
    }
}

impl GamePosition for Position {
    type Board = Board;
    type Move = dr::Move;
    type Color = Color;

    fn board(&self) -> &Board {
        &self.board
    }
    fn turn(&self) -> Color {
        self.pos.turn()
    }
    fn legal_moves(&self) -> impl Iterator<Item = dr::Move> {
        self.pos.legal_moves().into_iter()
    }
    fn play(&self, m: &dr::Move) -> Position {
        Position::new(self.pos.after(m))
    }
    fn board_after(&self, m: &dr::Move) -> Board {
        let mut b = self.board.clone();
        let from = GameMove::from(m);
        let piece = self.pos.piece_at(dr::Move::from(m)).expect("a piece moves");
        b.discard_piece_at(from);
        for &c in m.captured() {
            b.discard_piece_at(point(c));
        }
        let placed = if m.is_crowning() {
            dr::Piece::king(piece.color)
        } else {
            piece
        };
        b.set_piece_at(GameMove::to(m), stone(placed));
        b
    }
    fn notation(&self, m: &dr::Move) -> String {
        m.notation(&self.pos)
    }
    fn id(&self, m: &dr::Move) -> String {
        m.id()
    }
    fn fen(&self) -> String {
        self.pos.fen()
    }
    fn key(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.pos.hash(&mut h);
        h.finish()
    }
}

/// The referee: the rule book's game (draw counters) and the draws already
/// reported claimable, so each is reported once when it arises.
#[derive(Clone, Debug)]
pub struct Referee {
    game: Rules,
    claimable: Vec<Law>,
}

/// English draughts as an event plays it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Draughts;

/// The squares a sensor shows differently between two placements, in
/// words (`15 is empty, should hold a black man`).
fn differences(expected: &Board, seen: &Board) -> Vec<String> {
    expected.differences(seen, piece_name)
}

/// "a black man", "a white king", "a piece".
fn piece_name(p: Piece) -> String {
    let colour = match p.letter() {
        'M' | 'K' => "black ",
        'm' | 'k' => "white ",
        _ => "",
    };
    let kind = match p.letter() {
        'M' | 'm' => "man",
        'K' | 'k' => "king",
        _ => "piece",
    };
    format!("a {colour}{kind}")
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// The moves of a pseudo-move as the rule engine's observed change.
fn seen_of(m: &GridChange<Cells>) -> Option<Seen> {
    Some(Seen {
        from: square(m.from)?,
        to: square(m.to)?,
        removed: m.taken.iter().filter_map(|(sq, _)| square(*sq)).collect(),
        added: Vec::new(),
    })
}

impl Game for Draughts {
    type Square = Square;
    type Set = Points<Cells>;
    type Color = Color;
    type Piece = Piece;
    type Board = Board;
    type Move = dr::Move;
    type Position = Position;
    type Pseudo = GridChange<Cells>;
    type Referee = Referee;

    fn game_id(&self) -> GameId {
        GameId::Draughts
    }
    fn square_count(&self) -> usize {
        64
    }
    fn square(&self, i: usize) -> Square {
        Point::from_index(i).expect("64 squares")
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

    /// The start position (art. 1.11: Black on 1-12, White on 21-32). On a
    /// board without piece identity it looks the same both ways round: the
    /// first move tells.
    fn detect_start(&self, raw: &Board) -> Option<Start<Position>> {
        Start::either_way(Position::start(), raw)
    }

    fn nearest_start(&self, raw: &Board) -> Option<(Board, Points<Cells>)> {
        nearest_either_way(Position::start().board().clone(), raw, 18)
    }

    fn setup_alert(&self, intended: &Board, raw: &Board) -> Alert {
        let (i, r) = intended.facing(raw, Position::start().board());
        alert(
            AlertKind::Setup,
            None,
            Some(Law::SetUp.article()),
            setup_message(
                &differences(&i, &r),
                &format!(
                    "art. {}: Black on 1-12, White on 21-32",
                    Law::SetUp.article()
                ),
            ),
        )
    }

    fn results(&self) -> [&'static str; 3] {
        ["1-1", "0-2", "2-0"]
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

    /// Every ply sets its piece down on one square it did not occupy (a
    /// king's capture ring ending where it began sets down none), so the
    /// squares the target newly occupies need as many plies.
    fn feasible(&self, pos: &Position, target: &Board, plies: usize) -> bool {
        let arrivals = pos.board().diff(target) & target.occupied() & !pos.board().occupied();
        arrivals.count() <= plies
    }

    /// Design: captured men are often removed after the jumping piece
    /// lands, and a multi-jump is set down square by square: a capture
    /// waits as long as a move that may still be travelling.
    fn settle_ms(&self, rule: &SettleRule, _pos: &Position, m: &dr::Move) -> Millis {
        if m.is_capture() {
            rule.extendable_ms
        } else {
            rule.base_ms
        }
    }

    fn ranks_by_evidence(&self) -> bool {
        true
    }

    fn holds_first_move(&self) -> bool {
        true
    }

    /// A landing square of the jump, or a square diagonally next to a
    /// man it takes.
    fn short_of_capture(&self, m: &dr::Move, sq: Square) -> bool {
        let near = |a: Square, b: Square| {
            a.file().abs_diff(b.file()) == 1 && a.rank().abs_diff(b.rank()) == 1
        };
        self.route(m).contains(sq) || m.captured().iter().any(|&c| near(point(c), sq))
    }

    fn landings(&self, m: &dr::Move) -> Vec<Square> {
        let path = m.path();
        path[1..path.len() - 1]
            .iter()
            .map(|&sq| point(sq))
            .collect()
    }

    fn route(&self, m: &dr::Move) -> Points<Cells> {
        let path = m.path();
        let mut set = Points::default();
        for &sq in &path[1..path.len() - 1] {
            set.add(point(sq));
        }
        set
    }

    /// The rule engine's game, from the start or from the position the
    /// last illegal move that stood left (its history before is not the
    /// rules' business any more).
    fn referee(&self, record: &Record<Self>) -> Referee {
        let from = record.plies().iter().rposition(|p| p.m.is_none());
        let start = from.map_or(record.start(), |i| &record.plies()[i].after);
        let mut game = Rules::from_position(*start.rules());
        let first = from.map_or(0, |i| i + 1);
        for p in &record.plies()[first..] {
            if let Some(m) = &p.m {
                game.play(m);
            }
        }
        Referee {
            game,
            claimable: Vec::new(),
        }
    }

    /// Win by no legal move (art. 1.29), draws that may be claimed (art.
    /// 1.32.1 repetition, 1.32.2 forty moves): claims are alerts, not
    /// game ends.
    fn judge(
        &self,
        referee: &mut Referee,
        record: &Record<Self>,
        _has_moves: bool,
        ended: bool,
    ) -> Vec<Verdict> {
        let Some(m) = record.plies().last().and_then(|p| p.m.as_ref()) else {
            return Vec::new();
        };
        let verdicts = referee.game.play(m);
        let mut out = Vec::new();
        let mut claimable = Vec::new();
        for v in verdicts {
            match v {
                RuleVerdict::Win { winner, law } => {
                    if !ended {
                        out.push(Verdict::End {
                            result: Outcome::Win(winner).pdn().to_owned(),
                            reason: format!(
                                "{} has no legal move (art. {})",
                                winner.opponent().name(),
                                law.article()
                            ),
                        });
                    }
                }
                RuleVerdict::DrawClaimable { law } => {
                    claimable.push(law);
                    if !referee.claimable.contains(&law) {
                        let why = if law == Law::Repetition {
                            "the same position stands for the third time"
                        } else {
                            "40 moves each without a man advanced or a piece removed"
                        };
                        out.push(Verdict::Alert(alert(
                            AlertKind::DrawClaimable,
                            None,
                            Some(law.article()),
                            format!("A draw may be claimed: {why} (art. {}).", law.article()),
                        )));
                    }
                }
            }
        }
        referee.claimable = claimable;
        out
    }

    /// One piece moved: a plain step or jumps of the side to move, with the
    /// men it may have jumped removed (any of those a legal capture from its
    /// square over its landing square takes, so that captured men left
    /// standing or removed one by one still read as its move), or a piece of the side not to move
    /// (knocked, or moved out of turn) with nothing removed.
    fn find_pseudo(&self, pos: &Position, target: &Board) -> Option<GridChange<Cells>> {
        let captures = pos.pos.captures();
        let turn = pos.turn();
        // Design: the men removed must be those of a legal capture from its
        // square that passes over the square it stands on (a multi-jump
        // stopped on one of its landings). A plain step takes nothing: an
        // opponent's man lifted after it is the reply beginning, which
        // completes it (art. 1.25), not its victim.
        find_change(pos.board(), target, turn, |mover, from, to, taken| {
            mover == turn
                && captures.iter().any(|c| {
                    GameMove::from(c) == from
                        && c.path()[1..].iter().any(|&s| point(s) == to)
                        && taken
                            .iter()
                            .all(|t| c.captured().iter().any(|&s| point(s) == *t))
                })
        })
    }

    fn pseudo_board(&self, pos: &Position, m: &GridChange<Cells>, _target: &Board) -> Board {
        let mut b = pos.board().clone();
        b.discard_piece_at(m.from);
        for (sq, _) in &m.taken {
            b.discard_piece_at(*sq);
        }
        b.set_piece_at(m.to, m.placed);
        b
    }

    fn pseudo_text(&self, _pos: &Position, m: &GridChange<Cells>) -> (String, String) {
        let sep = if m.taken.is_empty() { '-' } else { 'x' };
        let text = format!("{}{sep}{}", m.from, m.to);
        (text.clone(), text)
    }

    /// Art. 1.24: a first illegal move is warned and the position before
    /// it restored, a second loses by forfeit; art. 1.25: a move the
    /// opponent answers stands. What is wrong is the rule engine's
    /// `classify` (art. 1.25.1-1.25.8).
    fn illegal_move_alert(
        &self,
        before: &Position,
        m: &GridChange<Cells>,
        count: u32,
        ply: usize,
        completed: Completed,
    ) -> Alert {
        let listed = |moves: &[dr::Move]| {
            moves
                .iter()
                .map(|c| c.notation(&before.pos))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (what, law) = match seen_of(m).map(|s| classify(&before.pos, &s)) {
            Some(Classification::MissedCapture { available }) => (
                format!(
                    "a capture was compulsory ({}, art. {}) and none was made",
                    listed(&available),
                    Law::CompulsoryCapture.article()
                ),
                Law::FailToCapture,
            ),
            Some(Classification::IncompleteJump { continuations }) => (
                format!(
                    "the multi-jump was not completed ({} was the whole capture, art. {})",
                    listed(&continuations),
                    Law::CompulsoryCapture.article()
                ),
                Law::FailToCapture,
            ),
            Some(c) if !c.is_legal() => (c.describe(), c.law().unwrap_or(Law::WrongSquare)),
            _ => ("moved to a wrong square".into(), Law::WrongSquare),
        };
        let mover = m.mover;
        let (notation, _) = self.pseudo_text(before, m);
        let number = ply / 2 + 1;
        let dots = if before.turn() == Color::Black {
            "."
        } else {
            "..."
        };
        let evidence = made_evidence(completed, color_name(mover), color_name(mover.opponent()));
        let consequence = if count == 1 {
            format!(
                "A first offence: the player is warned and the pieces go back where they stood (art. {}); if the opponent moves on instead, the move stands (art. {}).",
                Law::IllegalMove.article(),
                Law::Condonation.article()
            )
        } else {
            format!(
                "A repeated offence: the game is forfeited (art. {}).",
                Law::IllegalMove.article()
            )
        };
        alert(
            AlertKind::IllegalMove,
            Some(mover.side()),
            Some(law.article()),
            format!(
                "{}: {what} (art. {}); {evidence}. {consequence}",
                illegal_move_opening(color_name(mover), number, dots, &notation),
                law.article()
            ),
        )
    }

    fn irregular(&self, _before: &Position, board: Board, turn: Color) -> Option<Position> {
        let mut pos = dr::Position::empty(turn);
        for (p, piece) in board.pieces() {
            let sq = square(p)?;
            let color = Cells::color(piece.letter() as u8)?;
            let piece = match piece.letter() {
                'K' | 'k' => dr::Piece::king(color),
                _ => dr::Piece::man(color),
            };
            pos.set(sq, Some(piece));
        }
        Some(Position::new(pos))
    }

    fn illegal_position_alert(&self, _board: &Board) -> Option<Alert> {
        None
    }

    /// Art. 1.26: pieces displaced are put back, without penalty.
    fn misplaced_alert(&self, pos: &Position, board: &Board) -> Alert {
        let side = displaced_side(pos.board().diff(board).into_iter().map(|sq| {
            let color = |b: &Board| b.piece_at(sq).and_then(|p| Cells::color(p.letter() as u8));
            (color(pos.board()), color(board))
        }));
        alert(
            AlertKind::Misplaced,
            side.map(GameColor::side),
            Some(Law::Displaced.article()),
            displaced_message(
                side.map(color_name),
                &differences(pos.board(), board),
                &pos.fen(),
                &format!("art. {}", Law::Displaced.article()),
            ),
        )
    }

    /// Art. 1.22: a piece touched (not adjusted after notice, art. 1.21)
    /// must be moved if it can.
    fn touch_alerts(
        &self,
        pos: &Position,
        m: &dr::Move,
        touches: &[Touch<Self>],
        touch_ms: Millis,
    ) -> Vec<Alert> {
        let mover = pos.turn();
        let touches: Vec<&Touch<Self>> = touches
            .iter()
            .filter(|t| Cells::color(t.piece.letter() as u8) == Some(mover))
            .collect();
        let Some(t) = put_back_touch(pos, m, &touches, touch_ms) else {
            return Vec::new();
        };
        vec![alert(
            AlertKind::TouchMove,
            Some(mover.side()),
            Some(Law::TouchMove.article()),
            touch_message(
                color_name(mover),
                "the piece",
                t.sq,
                &m.notation(&pos.pos),
                &format!("art. {}", Law::TouchMove.article()),
            ),
        )]
    }

    /// PDN (`[GameType "21"]`); an illegal move that stood is written as
    /// played.
    fn record_text(
        &self,
        start: &str,
        plies: &[(String, String)],
        comments: &[Option<String>],
        result: Option<&str>,
    ) -> String {
        let Ok(mut pos) = dr::Position::from_fen(start) else {
            return String::new();
        };
        let mut g = PdnGame::new();
        g.start = pos;
        for (id, after) in plies {
            let m = match dr::Move::parse(id, &pos) {
                Ok(m) => m,
                Err(_) => match as_played(id) {
                    Some(m) => m,
                    None => break,
                },
            };
            g.moves.push(m);
            match dr::Position::from_fen(after) {
                Ok(p) => pos = p,
                Err(_) => break,
            }
        }
        g.outcome = match result {
            Some("2-0") => Outcome::Win(Color::Black),
            Some("0-2") => Outcome::Win(Color::White),
            Some("1-1") => Outcome::Draw,
            _ => Outcome::Unknown,
        };
        g.to_pdn_with_comments(comments)
    }

    fn article(&self, a: Article) -> Option<&'static str> {
        match a {
            Article::IllegalPosition => None,
            Article::Setup => Some(Law::SetUp.article()),
            Article::Displaced => Some(Law::Displaced.article()),
            Article::IllegalMove => Some(Law::IllegalMove.article()),
            // Art. 1.30: a player also wins when the opponent's time runs
            // out in a timed game. The book says nothing of presses.
            Article::LostOnTime => Some(Law::OtherWin.article()),
            Article::ClockPress => None,
        }
    }

    fn cite(&self, article: &str) -> String {
        format!("art. {article}")
    }

    fn captures_left_standing(&self) -> bool {
        true
    }

    fn parse_position(&self, fen: &str) -> Option<Position> {
        dr::Position::from_fen(fen).ok().map(Position::new)
    }

    fn position_with(&self, board: &Board, first_to_move: bool) -> Option<Position> {
        // A PDN FEN of the board: Black (the first player) `M`/`K`.
        let mut lists = [Vec::new(), Vec::new()];
        for (p, stone) in board.pieces() {
            let sq = square(p)?;
            let (side, king) = match stone.letter() {
                'M' => (0, false),
                'K' => (0, true),
                'm' => (1, false),
                'k' => (1, true),
                _ => return None,
            };
            lists[side].push(format!("{}{}", if king { "K" } else { "" }, sq.number()));
        }
        if lists.iter().any(Vec::is_empty) {
            return None;
        }
        let fen = format!(
            "{}:W{}:B{}",
            if first_to_move { 'B' } else { 'W' },
            lists[1].join(","),
            lists[0].join(",")
        );
        dr::Position::from_fen(&fen).ok().map(Position::new)
    }
}

/// An illegal move as played, from its id (`9-13`, `15x22`).
fn as_played(id: &str) -> Option<dr::Move> {
    let path: Vec<dr::Square> = id
        .split(['-', 'x'])
        .map(|n| n.parse().ok().and_then(dr::Square::new))
        .collect::<Option<_>>()?;
    (path.len() >= 2).then(|| dr::Move::new(path, Vec::new(), false))
}
// Draughts and xiangqi boards are read alike: a whole board, then the
// squares that changed.
super::diffing::diffed!(Draughts);
