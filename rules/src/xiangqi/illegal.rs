//! What an arbiter checks when a move is seen on the board: which rule of
//! the book (`xiangqi-association-rules-2022.zh.txt`) a change breaks, and
//! the illegal moves players plausibly make, for the reconstructor to
//! recognise (as [`crate::draughts::classify`] does for draughts).
//!
//! The book's articles:
//! - Art. 16 ①: a move that puts or leaves one's own general in check
//!   loses (自杀着法), the generals left facing on an open file included
//!   (the flying-general rule: facing is being in check);
//! - Art. 16 ②: not answering a check loses;
//! - Art. 20: moving a piece to a point it cannot move to, and moving twice
//!   in a row, are technical fouls (技术犯规); Art. 16: a second technical
//!   foul in a game loses;
//! - Art. 4: the arbiter interprets the rules and rules on what they do not
//!   name (a piece added, a piece removed that was not captured).
//!
//! Design: the movement faults ([`Fault`]) name what a player did wrong
//! (a horse whose leg is blocked, an elephant over the river or over a
//! blocked eye, an advisor or general out of the palace, a cannon with no
//! or two screens, a soldier backwards or sideways before the river), so
//! the alert says it in words; Art. 20 covers them all.

use super::{Kind, Move, Position, Side, Square};

/// The articles of the rule book that boardcast cites for xiangqi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Law {
    /// Art. 4: the arbiter interprets the rules and rules on the rest.
    Arbiter,
    /// Art. 6: the event fixes the move limit.
    MoveLimitSet,
    /// Art. 13: a touched piece must be moved (an enemy piece captured).
    TouchMove,
    /// Art. 14: a move is final once the hand leaves the piece.
    Released,
    /// Art. 16: losses (mate, self-check, an unanswered check, a forbidden
    /// repetition not changed, two technical fouls).
    Loss,
    /// Art. 17: draws (repetition not forbidden, move limit, both sides
    /// breaking the same rule).
    Draw,
    /// Art. 20: technical fouls (a piece moved to a point it cannot reach,
    /// two moves in a row, touching an unmovable piece).
    TechnicalFoul,
    /// Art. 21: infractions (pressing the clock without moving).
    Infraction,
}

impl Law {
    /// The article number as the rule book prints it.
    #[must_use]
    pub fn article(self) -> &'static str {
        match self {
            Law::Arbiter => "4",
            Law::MoveLimitSet => "6",
            Law::TouchMove => "13",
            Law::Released => "14",
            Law::Loss => "16",
            Law::Draw => "17",
            Law::TechnicalFoul => "20",
            Law::Infraction => "21",
        }
    }
}

/// A piece moved as its kind may not (Art. 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// It landed on a piece of its own side.
    OwnPiece,
    /// The general left the palace.
    GeneralOutOfPalace,
    /// The general moved other than one point along a line.
    GeneralStep,
    /// The advisor left the palace.
    AdvisorOutOfPalace,
    /// The advisor moved other than one point diagonally.
    AdvisorStep,
    /// The elephant crossed the river.
    ElephantCrossedRiver,
    /// The elephant jumped over a blocked eye (塞象眼).
    ElephantEyeBlocked,
    /// The elephant moved other than two points diagonally.
    ElephantStep,
    /// The horse jumped past a piece on its leg (蹩马腿).
    HorseLegBlocked,
    /// The horse moved other than one point along a line and one
    /// diagonally.
    HorseStep,
    /// The chariot passed over a piece.
    ChariotBlocked,
    /// The chariot moved off a line.
    ChariotStep,
    /// The cannon captured with no screen.
    CannonNoScreen,
    /// The cannon captured over two or more screens.
    CannonScreens,
    /// The cannon passed over a piece without capturing.
    CannonJumped,
    /// The cannon moved off a line.
    CannonStep,
    /// The soldier moved backwards.
    SoldierBackwards,
    /// The soldier moved sideways before crossing the river.
    SoldierSidewaysBeforeRiver,
    /// The soldier moved more than one point, or diagonally.
    SoldierStep,
}

impl Fault {
    /// What is wrong, in words.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Fault::OwnPiece => "the piece landed on a piece of its own side",
            Fault::GeneralOutOfPalace => "the general left the palace",
            Fault::GeneralStep => "the general moves one point along a line",
            Fault::AdvisorOutOfPalace => "the advisor left the palace",
            Fault::AdvisorStep => "the advisor moves one point diagonally",
            Fault::ElephantCrossedRiver => "the elephant crossed the river",
            Fault::ElephantEyeBlocked => "the elephant's eye was blocked",
            Fault::ElephantStep => "the elephant moves two points diagonally",
            Fault::HorseLegBlocked => "the horse's leg was blocked",
            Fault::HorseStep => "the horse moves one point straight and one diagonally",
            Fault::ChariotBlocked => "the chariot passed over a piece",
            Fault::ChariotStep => "the chariot moves along a line",
            Fault::CannonNoScreen => "the cannon captured without a screen",
            Fault::CannonScreens => "the cannon captured over more than one screen",
            Fault::CannonJumped => "the cannon passed over a piece without capturing",
            Fault::CannonStep => "the cannon moves along a line",
            Fault::SoldierBackwards => "the soldier moved backwards",
            Fault::SoldierSidewaysBeforeRiver => {
                "the soldier moved sideways before crossing the river"
            }
            Fault::SoldierStep => "the soldier moves one point",
        }
    }
}

/// How a move left its own general exposed (Art. 16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exposure {
    /// The two generals face each other on an open file (flying general).
    GeneralsFacing,
    /// The move put its own general in check (Art. 16 ①).
    IntoCheck,
    /// The general was in check and the move did not answer it (Art. 16 ②).
    CheckNotAnswered,
}

/// A change seen on the board, not yet known to be legal: a piece went from
/// `from` to `to`; other points emptied (`removed`, not counting `to`,
/// whose piece a capture replaces) and points newly occupied besides `to`
/// (`added`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenMove {
    /// Where the moving piece stood.
    pub from: Square,
    /// Where it was set down.
    pub to: Square,
    /// Other points emptied.
    pub removed: Vec<Square>,
    /// Points newly occupied other than `to`.
    pub added: Vec<Square>,
}

impl SeenMove {
    /// A plain change: one piece from `from` to `to`, nothing else.
    #[must_use]
    pub fn new(from: Square, to: Square) -> SeenMove {
        SeenMove {
            from,
            to,
            removed: Vec::new(),
            added: Vec::new(),
        }
    }
}

/// What an observed [`SeenMove`] is, by the rule book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classification {
    /// A legal move.
    Legal(Move),
    /// Nothing stood on `from`.
    NoPiece,
    /// A piece of the side not to move moved: two moves in a row (Art. 20).
    OutOfTurn,
    /// Pieces appeared on the board (Art. 4).
    AddedPiece,
    /// The move is legal, but other pieces were removed than the one it
    /// captured (Art. 4).
    WrongRemoval {
        /// The legal move.
        expected: Move,
    },
    /// The piece moved as it may not (Art. 20).
    Movement(Fault),
    /// The move left its own general in check or facing the other (Art. 16).
    Exposed(Exposure),
}

impl Classification {
    /// The article to cite; `None` for a legal move or no piece moved.
    #[must_use]
    pub fn law(&self) -> Option<Law> {
        Some(match self {
            Classification::Legal(_) | Classification::NoPiece => return None,
            Classification::OutOfTurn | Classification::Movement(_) => Law::TechnicalFoul,
            Classification::AddedPiece | Classification::WrongRemoval { .. } => Law::Arbiter,
            Classification::Exposed(_) => Law::Loss,
        })
    }

    /// Whether this is a legal move.
    #[must_use]
    pub fn is_legal(&self) -> bool {
        matches!(self, Classification::Legal(_))
    }

    /// A short English description for alert messages.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Classification::Legal(m) => format!("legal move {m}"),
            Classification::NoPiece => "no piece stood on that point".into(),
            Classification::OutOfTurn => "moved out of turn (two moves in a row)".into(),
            Classification::AddedPiece => "pieces added to the board".into(),
            Classification::WrongRemoval { expected } => {
                format!("pieces removed that the move {expected} did not capture")
            }
            Classification::Movement(f) => f.describe().into(),
            Classification::Exposed(Exposure::GeneralsFacing) => {
                "the generals were left facing each other".into()
            }
            Classification::Exposed(Exposure::IntoCheck) => {
                "the move put its own general in check".into()
            }
            Classification::Exposed(Exposure::CheckNotAnswered) => {
                "the general was in check and the move did not answer it".into()
            }
        }
    }

    /// What the rule book prescribes, in words.
    #[must_use]
    pub fn consequence(&self) -> &'static str {
        match self.law() {
            Some(Law::Loss) => "the book rules the game lost for the mover (Art. 16)",
            Some(Law::TechnicalFoul) => {
                "a technical foul (Art. 20); a second one in the game loses it (Art. 16)"
            }
            Some(Law::Arbiter) => "the arbiter rules (Art. 4)",
            _ => "",
        }
    }
}

/// The movement fault of a move of the piece on `from` to `to`, if its kind
/// may not move so in `pos` (own general's safety not considered).
#[must_use]
pub fn movement_fault(pos: &Position, from: Square, to: Square) -> Option<Fault> {
    let p = pos.piece_at(from)?;
    if from == to {
        return Some(Fault::OwnPiece);
    }
    if pos.piece_at(to).is_some_and(|t| t.side == p.side) {
        return Some(Fault::OwnPiece);
    }
    let mut pseudo = Vec::new();
    pos.pseudo_moves_from(from, &mut pseudo);
    if pseudo.contains(&Move { from, to }) {
        return None;
    }
    let (df, dr) = (to.file() - from.file(), to.rank() - from.rank());
    let straight = (df == 0) != (dr == 0);
    let between = pos.count_between(from, to).unwrap_or(0);
    Some(match p.kind {
        Kind::General if !to.in_palace(p.side) => Fault::GeneralOutOfPalace,
        Kind::General => Fault::GeneralStep,
        Kind::Advisor if !to.in_palace(p.side) => Fault::AdvisorOutOfPalace,
        Kind::Advisor => Fault::AdvisorStep,
        Kind::Elephant if df.abs() == 2 && dr.abs() == 2 => {
            if to.own_half(p.side) {
                Fault::ElephantEyeBlocked
            } else {
                Fault::ElephantCrossedRiver
            }
        }
        Kind::Elephant if !to.own_half(p.side) => Fault::ElephantCrossedRiver,
        Kind::Elephant => Fault::ElephantStep,
        Kind::Horse if (df.abs(), dr.abs()) == (1, 2) || (df.abs(), dr.abs()) == (2, 1) => {
            Fault::HorseLegBlocked
        }
        Kind::Horse => Fault::HorseStep,
        Kind::Chariot if straight => Fault::ChariotBlocked,
        Kind::Chariot => Fault::ChariotStep,
        Kind::Cannon if !straight => Fault::CannonStep,
        Kind::Cannon if pos.piece_at(to).is_some() => {
            if between == 0 {
                Fault::CannonNoScreen
            } else {
                Fault::CannonScreens
            }
        }
        Kind::Cannon => Fault::CannonJumped,
        Kind::Soldier => {
            let fwd = if p.side == Side::Red { 1 } else { -1 };
            if dr * fwd < 0 {
                Fault::SoldierBackwards
            } else if dr == 0 && df.abs() == 1 {
                Fault::SoldierSidewaysBeforeRiver
            } else {
                Fault::SoldierStep
            }
        }
    })
}

/// How a move that the piece may make leaves its own general, if exposed.
fn exposure(pos: &Position, m: Move) -> Option<Exposure> {
    let side = pos.piece_at(m.from)?.side;
    let mut after = pos.clone();
    after.apply(m);
    if !after.in_check_side(side) {
        return None;
    }
    let facing = match (after.general(Side::Red), after.general(Side::Black)) {
        (Some(r), Some(b)) => r.file() == b.file() && after.count_between(r, b) == Some(0),
        _ => false,
    };
    let mut before = pos.clone();
    before.turn = side;
    Some(if facing {
        Exposure::GeneralsFacing
    } else if before.in_check() {
        Exposure::CheckNotAnswered
    } else {
        Exposure::IntoCheck
    })
}

/// Classifies an observed change against the rules in `pos` (the position
/// before it). Checks, in order: a piece on `from`, whose turn it was
/// (Art. 20), pieces added (Art. 4), the piece's movement (Art. 20), its
/// own general's safety (Art. 16), pieces removed that were not captured
/// (Art. 4).
#[must_use]
pub fn classify(pos: &Position, seen: &SeenMove) -> Classification {
    let Some(piece) = pos.piece_at(seen.from) else {
        return Classification::NoPiece;
    };
    if piece.side != pos.turn() {
        return Classification::OutOfTurn;
    }
    if !seen.added.is_empty() {
        return Classification::AddedPiece;
    }
    if let Some(f) = movement_fault(pos, seen.from, seen.to) {
        return Classification::Movement(f);
    }
    let m = Move {
        from: seen.from,
        to: seen.to,
    };
    if let Some(e) = exposure(pos, m) {
        return Classification::Exposed(e);
    }
    if seen.removed.iter().any(|&s| s != seen.to && s != seen.from) {
        return Classification::WrongRemoval { expected: m };
    }
    Classification::Legal(m)
}

/// An illegal move players plausibly make, with what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Irregular {
    /// The move as a player would make it (play it with
    /// [`Position::after_unchecked`]).
    pub mv: Move,
    /// What the rules make of it.
    pub classification: Classification,
}

impl Irregular {
    /// The article it breaks.
    #[must_use]
    pub fn law(&self) -> Law {
        self.classification
            .law()
            .expect("an irregular move breaks an article")
    }
}

/// The illegal moves of the side to move that players plausibly make: every
/// move its pieces may make that leaves its own general in check or facing
/// the other (Art. 16), and the movement faults of Art. 20 that happen at
/// the board: a horse over a blocked leg, an elephant over a blocked eye or
/// across the river, an advisor or the general stepping out of the palace,
/// a cannon capturing with no screen or over two, a soldier sideways
/// before the river. Moves onto the mover's own pieces are never listed.
#[must_use]
pub fn irregular_moves(pos: &Position) -> Vec<Irregular> {
    let side = pos.turn();
    let mut out = Vec::new();
    // Design: one buffer for every piece's moves, cleared between pieces,
    // so listing allocates no more than the result.
    let mut moves = Vec::new();
    for (from, p) in pos.pieces(side) {
        moves.clear();
        pos.pseudo_moves_from(from, &mut moves);
        movement_faults(pos, from, p.kind, &mut moves);
        for &m in &moves {
            push_irregular(pos, m, &mut out);
        }
    }
    out
}

/// Adds `m` to `out` when it is illegal for the side to move and not
/// listed yet; a move onto the mover's own piece is no move at all.
fn push_irregular(pos: &Position, m: Move, out: &mut Vec<Irregular>) {
    if pos.piece_at(m.to).is_some_and(|t| t.side == pos.turn()) {
        return;
    }
    let c = classify(pos, &SeenMove::new(m.from, m.to));
    if !c.is_legal() && !out.iter().any(|i| i.mv == m) {
        out.push(Irregular {
            mv: m,
            classification: c,
        });
    }
}

/// Adds the Art. 20 movement faults a `kind` on `from` plausibly makes:
/// its steps without the rule that blocks them (palace, leg, eye, river,
/// screen).
fn movement_faults(pos: &Position, from: Square, kind: Kind, out: &mut Vec<Move>) {
    let side = pos.turn();
    let steps = |deltas: &[(i8, i8)], out: &mut Vec<Move>| {
        let moves = deltas.iter().filter_map(|&(df, dr)| from.offset(df, dr));
        out.extend(moves.map(|to| Move { from, to }));
    };
    match kind {
        Kind::General | Kind::Advisor => {
            let deltas: &[(i8, i8)] = if kind == Kind::General {
                &[(1, 0), (-1, 0), (0, 1), (0, -1)]
            } else {
                &[(1, 1), (1, -1), (-1, 1), (-1, -1)]
            };
            let outside = deltas
                .iter()
                .filter_map(|&(df, dr)| from.offset(df, dr))
                .filter(|to| !to.in_palace(side));
            out.extend(outside.map(|to| Move { from, to }));
        }
        Kind::Elephant => steps(&[(2, 2), (2, -2), (-2, 2), (-2, -2)], out),
        Kind::Horse => steps(
            &[
                (1, 2),
                (-1, 2),
                (1, -2),
                (-1, -2),
                (2, 1),
                (2, -1),
                (-2, 1),
                (-2, -1),
            ],
            out,
        ),
        Kind::Cannon => cannon_faults(pos, from, out),
        Kind::Soldier if from.own_half(side) => steps(&[(1, 0), (-1, 0)], out),
        Kind::Soldier | Kind::Chariot => {}
    }
}

/// Adds a cannon's faulty captures: along each line, the first piece
/// (captured with no screen) and the third (over two screens).
fn cannon_faults(pos: &Position, from: Square, out: &mut Vec<Move>) {
    for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
        let mut s = from;
        let mut seen = 0;
        while let Some(next) = s.offset(df, dr) {
            s = next;
            if pos.piece_at(s).is_some() {
                seen += 1;
                if seen == 1 || seen == 3 {
                    out.push(Move { from, to: s });
                }
                if seen == 3 {
                    break;
                }
            }
        }
    }
}

/// Illegal-move offences per side: technical fouls count toward the loss
/// at the second (Art. 16, 20); a self-check loses at once (Art. 16).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fouls {
    counts: [u32; 2],
}

/// What the book gives for an offence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Penalty {
    /// A first technical foul (Art. 20).
    Foul,
    /// The game is lost (Art. 16).
    Loss,
    /// The arbiter rules (Art. 4).
    ArbiterRules,
}

impl Fouls {
    /// Records an offence of `side` and returns its penalty.
    pub fn record(&mut self, side: Side, c: &Classification) -> Option<Penalty> {
        let i = match side {
            Side::Red => 0,
            Side::Black => 1,
        };
        Some(match c.law()? {
            Law::TechnicalFoul => {
                self.counts[i] += 1;
                if self.counts[i] >= 2 {
                    Penalty::Loss
                } else {
                    Penalty::Foul
                }
            }
            Law::Loss => Penalty::Loss,
            _ => Penalty::ArbiterRules,
        })
    }

    /// Technical fouls recorded for `side`.
    #[must_use]
    pub fn count(&self, side: Side) -> u32 {
        self.counts[match side {
            Side::Red => 0,
            Side::Black => 1,
        }]
    }
}
