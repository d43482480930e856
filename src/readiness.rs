//! A board's readiness before the round (the board check): whether it is
//! connected, who it says it is, its clock's battery, how it stands, its
//! set-up against the game's start, piece codes a set cannot hold, and its
//! clock against the event's time control. Each item is `ok`, `warn` or
//! `fail` with a sentence for the arbiter; a board is ready when no item
//! fails.
//!
//! Pure: [`Readiness::judge`] reads an [`Observed`], which
//! [`Observed::of`] gathers from a board's [`BoardPipeline`] (what the
//! pipeline has seen, through its accessors; nothing here changes how
//! moves are read) and the line's [`Context`]. The session puts it in the
//! board's retained state before the first move of a game
//! ([`crate::session::StateMessage::readiness`]); the live page lists every
//! board's at `/check`; `boardcast check` prints it and exits non-zero when
//! a board is not ready.

use boardcast_protocols::reading::{ClockReading, Content, Face, Identity, ResultToken, Snapshot};
use serde::{Deserialize, Serialize};

use crate::clock::{TimeControl, hms};
use crate::event::{GameId, Millis};
use crate::pipeline::BoardPipeline;

/// How far (seconds) a clock face may be from the time control's base
/// time (a clock set by hand, a reading taken as a second ticks).
pub const CLOCK_TOLERANCE_S: u32 = 3;

/// How long (ms) input dropped for its piece code counts as a piece code
/// on the board: three open-protocol resynchronisations (a board whose
/// whole-board line holds a foreign letter sends it again at each).
pub const UNREADABLE_WINDOW_MS: Millis = 30_000;

/// How an item stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Nothing to do.
    Ok,
    /// Worth a look; the board can be used as it is.
    Warn,
    /// The board is not ready until this is put right.
    Fail,
}

impl Status {
    /// `ok`, `warn`, `fail`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

/// One thing checked: how it stands, a sentence, and the squares it
/// concerns (the set-up's and the pieces' items).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// How it stands.
    pub status: Status,
    /// What was found, as one sentence (or a few) for the arbiter.
    pub message: String,
    /// The squares concerned, named as the game names them (the set-up)
    /// or as the board names them (the pieces).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub squares: Vec<String>,
}

impl Item {
    fn new(status: Status, message: impl Into<String>) -> Item {
        Item {
            status,
            message: message.into(),
            squares: Vec::new(),
        }
    }

    fn ok(message: impl Into<String>) -> Item {
        Item::new(Status::Ok, message)
    }

    fn warn(message: impl Into<String>) -> Item {
        Item::new(Status::Warn, message)
    }

    fn fail(message: impl Into<String>) -> Item {
        Item::new(Status::Fail, message)
    }
}

/// A board's readiness: every item, and whether none fails.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Readiness {
    /// No item fails.
    pub ready: bool,
    /// The board's line is up.
    pub connected: Item,
    /// Who the board says it is: serial number, firmware, model.
    pub identity: Item,
    /// The battery, where a clock reports one.
    pub battery: Item,
    /// Whether the board stands turned round.
    pub orientation: Item,
    /// The set-up against the game's start, naming the squares.
    pub setup: Item,
    /// Piece codes the game's set cannot hold.
    pub pieces: Item,
    /// The clock: connected, showing the event's time control.
    pub clock: Item,
}

/// What a board's session knows of it beside its pipeline: its line, and
/// the event's time control for it (judged for every game here, where the
/// pipeline judges flags in chess only).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The line is up and the board identified.
    pub connected: bool,
    /// The device path in use (or last used).
    pub port: Option<String>,
    /// The event's time control for the board.
    pub time_control: Option<TimeControl>,
}

/// How the board's squares stand against the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Squares {
    /// No square read yet.
    Unread,
    /// A game is on (a start position was recognised).
    Game {
        /// Plies played.
        plies: usize,
        /// The board stands turned round.
        rotated: bool,
    },
    /// Close to a start position, set up wrongly.
    Near {
        /// The `setup` alert's sentence, naming the squares.
        message: String,
        /// The squares that differ (the game's names).
        squares: Vec<String>,
    },
    /// Far from every start position.
    Far {
        /// Pieces on the board.
        pieces: usize,
    },
}

/// What a board has shown, as the check reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    /// The game the board plays.
    pub game: GameId,
    /// Its line and time control.
    pub context: Context,
    /// Who it says it is.
    pub identity: Identity,
    /// Its squares against the game.
    pub squares: Squares,
    /// Its squares as last reported, raw (the board's own coordinates).
    pub contents: Option<Snapshot>,
    /// Why recent input was dropped for its piece code (within
    /// [`UNREADABLE_WINDOW_MS`]).
    pub unreadable: Vec<String>,
    /// Whether a clock is connected (`None`: not heard of).
    pub clock_connected: Option<bool>,
    /// The clock as last read.
    pub clock: Option<ClockReading>,
}

impl Observed {
    /// What `pipeline` has seen of its board, in `context`.
    pub fn of(pipeline: &BoardPipeline, context: Context) -> Observed {
        let game = pipeline.any_game();
        let seen = pipeline.sightings();
        let squares = if pipeline.in_game() {
            Squares::Game {
                plies: game.last_mover().0,
                rotated: pipeline.is_rotated(),
            }
        } else if seen.contents.is_none() {
            Squares::Unread
        } else if let Some((message, squares)) = game.setup_gap() {
            Squares::Near { message, squares }
        } else {
            Squares::Far {
                pieces: game.sensed_pieces(),
            }
        };
        let since = pipeline.now().saturating_sub(UNREADABLE_WINDOW_MS);
        let mut unreadable: Vec<String> = Vec::new();
        for (t, reason) in &seen.dropped {
            if *t >= since && is_piece_code(reason) && !unreadable.contains(reason) {
                unreadable.push(reason.clone());
            }
        }
        Observed {
            game: pipeline.game(),
            context,
            identity: seen.identity.clone(),
            squares,
            contents: seen.contents.clone(),
            unreadable,
            clock_connected: pipeline.clock().connected(),
            clock: pipeline.clock().last(),
        }
    }
}

/// Whether input was dropped for a piece code no set holds.
///
/// Design: the decoders say in words why they drop a frame or a line
/// (`StreamError::Malformed`'s reason, the DGT decoder's), and each reason
/// about a piece code names a piece ("piece code above 15 in board dump",
/// "not a piece letter of this game"); the tests feed both decoders such
/// input and check it is recognised here.
fn is_piece_code(reason: &str) -> bool {
    reason.contains("piece")
}

impl Readiness {
    /// The item names, in the order [`Readiness::items`] lists them (as
    /// the state's JSON names them).
    pub const CHECKS: [&'static str; 7] = [
        "connected",
        "identity",
        "battery",
        "orientation",
        "setup",
        "pieces",
        "clock",
    ];

    /// The readiness of the board `pipeline` reads, in `context`.
    pub fn of(pipeline: &BoardPipeline, context: Context) -> Readiness {
        Readiness::judge(&Observed::of(pipeline, context))
    }

    /// Judges what a board has shown.
    pub fn judge(o: &Observed) -> Readiness {
        let mut r = Readiness {
            ready: false,
            connected: connected(&o.context),
            identity: identity(&o.identity),
            battery: battery(o.clock.as_ref()),
            orientation: orientation(o),
            setup: setup(&o.squares),
            pieces: pieces(o),
            clock: clock(o),
        };
        r.ready = r.items().iter().all(|(_, i)| i.status != Status::Fail);
        r
    }

    /// Every item with its name, in [`Readiness::CHECKS`] order.
    pub fn items(&self) -> [(&'static str, &Item); 7] {
        let items = [
            &self.connected,
            &self.identity,
            &self.battery,
            &self.orientation,
            &self.setup,
            &self.pieces,
            &self.clock,
        ];
        std::array::from_fn(|i| (Self::CHECKS[i], items[i]))
    }

    /// The worst status of any item.
    pub fn worst(&self) -> Status {
        self.items()
            .iter()
            .map(|(_, i)| i.status)
            .max()
            .unwrap_or(Status::Ok)
    }
}

fn connected(context: &Context) -> Item {
    match (context.connected, &context.port) {
        (true, Some(port)) => Item::ok(format!("Connected on {port}.")),
        (true, None) => Item::ok("Connected."),
        (false, _) => Item::fail("Not connected: no board answers on its line."),
    }
}

fn identity(id: &Identity) -> Item {
    let parts: Vec<String> = [
        id.serial.as_ref().map(|s| format!("serial {s}")),
        id.version.as_ref().map(|v| format!("firmware {v}")),
        id.name.clone(),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        return Item::warn(
            "The board has not named itself (no serial number, firmware or model reported).",
        );
    }
    let text = parts.join(", ");
    let mut chars = text.chars();
    let first = chars.next().map(|c| c.to_uppercase().to_string());
    Item::ok(format!("{}{}.", first.unwrap_or_default(), chars.as_str()))
}

fn battery(clock: Option<&ClockReading>) -> Item {
    match clock {
        Some(r) if r.battery_low => {
            Item::fail("The clock reports a low battery: change it before the round.")
        }
        Some(_) => Item::ok("The clock reports no low battery."),
        None => Item::ok("Not reported (no clock reading)."),
    }
}

fn orientation(o: &Observed) -> Item {
    match o.squares {
        Squares::Game { rotated: false, .. } => Item::ok("Not turned round."),
        Squares::Game { rotated: true, .. } => Item::warn(format!(
            "Turned round ({} on the board's own first ranks): it is read mirrored; turn it if the rules of the event want it turned.",
            o.game.side(false).name()
        )),
        _ => Item::warn("Not known until the start position stands."),
    }
}

fn setup(squares: &Squares) -> Item {
    match squares {
        Squares::Unread => Item::fail("No reading of the board's squares yet."),
        Squares::Game { plies: 0, .. } => Item::ok("The start position stands."),
        Squares::Game { plies, .. } => Item::fail(format!(
            "A game is on the board ({plies} {} played): set up the start position for the next one.",
            if *plies == 1 { "ply" } else { "plies" }
        )),
        Squares::Near { message, squares } => Item {
            squares: squares.clone(),
            ..Item::fail(message.clone())
        },
        Squares::Far { pieces: 0 } => Item::fail("The board is empty: set up the start position."),
        Squares::Far { pieces } => Item::fail(format!(
            "The board does not show the start position ({pieces} pieces on it, too far from it to name the squares)."
        )),
    }
}

/// One kind of piece in a game's set: its letters (upper case: the first
/// player's; the open protocol's and the families' neutral letters), how
/// many of them one side's set has, and its name.
struct Kind {
    letters: &'static str,
    count: usize,
    many: &'static str,
}

const fn kind(letters: &'static str, count: usize, many: &'static str) -> Kind {
    Kind {
        letters,
        count,
        many,
    }
}

/// One side's set, per game.
const CHESS: &[Kind] = &[
    kind("K", 1, "kings"),
    kind("Q", 1, "queens"),
    kind("R", 2, "rooks"),
    kind("B", 2, "bishops"),
    kind("N", 2, "knights"),
    kind("P", 8, "pawns"),
];
/// A crowned man is two men stacked: men and kings share the twelve.
const DRAUGHTS: &[Kind] = &[kind("MK", 12, "men and kings")];
const XIANGQI: &[Kind] = &[
    kind("K", 1, "generals"),
    kind("A", 2, "advisors"),
    kind("B", 2, "elephants"),
    kind("N", 2, "horses"),
    kind("R", 2, "chariots"),
    kind("C", 2, "cannons"),
    kind("P", 5, "soldiers"),
];

fn set_of(game: GameId) -> &'static [Kind] {
    match game {
        GameId::Chess => CHESS,
        GameId::Draughts => DRAUGHTS,
        GameId::Xiangqi => XIANGQI,
    }
}

/// How the game numbers its first rank (xiangqi from 0, ICCS).
fn first_rank(game: GameId) -> u8 {
    match game {
        GameId::Xiangqi => 0,
        GameId::Chess | GameId::Draughts => 1,
    }
}

fn token_name(t: ResultToken) -> &'static str {
    match t {
        ResultToken::Draw => "draw",
        ResultToken::FirstWins => "first player wins",
        ResultToken::SecondWins => "second player wins",
    }
}

/// Piece codes the game's set cannot hold: input dropped for its piece
/// code, letters of no piece of the set, unknown tags on a board that
/// names its pieces, result pieces, and more pieces of a kind than a set
/// has.
fn pieces(o: &Observed) -> Item {
    let game = o.game.name();
    let mut found: Vec<String> = o
        .unreadable
        .iter()
        .map(|reason| format!("the board sent a piece code no {game} set holds ({reason})"))
        .collect();
    let mut squares = Vec::new();
    if let Some(contents) = &o.contents {
        squares = foreign_squares(o.game, contents, &mut found);
    }
    if found.is_empty() {
        return match (&o.contents, o.unreadable.is_empty()) {
            (None, true) => Item::warn("No reading of the board's squares yet."),
            _ => Item::ok(format!("Every piece reads as a piece of a {game} set.")),
        };
    }
    let mut text = found.join("; ");
    text[..1].make_ascii_uppercase();
    Item {
        squares,
        ..Item::fail(format!("{text}."))
    }
}

/// What on `contents` no set of `game` holds, added to `found` as
/// phrases; returns the squares concerned (the board's names).
fn foreign_squares(game: GameId, contents: &Snapshot, found: &mut Vec<String>) -> Vec<String> {
    let set = set_of(game);
    let geometry = contents.geometry();
    let names_pieces = contents
        .cells()
        .iter()
        .any(|c| matches!(c, Content::Piece(_)));
    let mut squares = Vec::new();
    // Squares holding each kind, per side (the first player's first).
    let mut kinds: Vec<[Vec<String>; 2]> = set.iter().map(|_| Default::default()).collect();
    for (i, content) in contents.cells().iter().enumerate() {
        let Some(at) = geometry.square(i) else {
            continue;
        };
        let name = at.name(first_rank(game));
        let foreign = match content {
            Content::Empty => continue,
            Content::Piece(p) => {
                let upper = p.letter().to_ascii_uppercase();
                match set.iter().position(|k| k.letters.contains(upper)) {
                    Some(k) => {
                        kinds[k][usize::from(!p.is_first_player())].push(name);
                        continue;
                    }
                    None => format!("{name}: `{}`, no piece of a {} set", p, game.name()),
                }
            }
            Content::Occupied if names_pieces => {
                format!("{name}: a piece the board cannot identify (an unknown tag or chip)")
            }
            Content::Occupied => continue,
            Content::Token(t) => format!(
                "{name}: a result piece ({}), no piece of the set",
                token_name(*t)
            ),
        };
        found.push(foreign);
        squares.push(name);
    }
    for (kind, sides) in set.iter().zip(kinds) {
        for (first, on) in [true, false].into_iter().zip(sides) {
            if on.len() > kind.count {
                found.push(format!(
                    "{} {} {} on {} (a set has {})",
                    on.len(),
                    game.side(first).name(),
                    kind.many,
                    on.join(", "),
                    kind.count
                ));
                squares.extend(on);
            }
        }
    }
    squares
}

/// The faces as `left | right`; a running face's time only when `exact`.
///
/// Design: a state is republished whenever the check changes, and a
/// running face changes every second: where its time does not decide
/// anything (a check that passes) it is written `running`.
fn faces_text(r: &ClockReading, exact: bool) -> String {
    let face = |f: Face| match (r.running == Some(f), exact) {
        (false, _) => hms(r.on(f)),
        (true, true) => format!("{} (running)", hms(r.on(f))),
        (true, false) => "running".to_owned(),
    };
    format!("{} | {}", face(Face::Left), face(Face::Right))
}

fn time_control_text(tc: &TimeControl) -> String {
    let base = hms(tc.initial_seconds());
    match tc.increment_seconds() {
        0 => format!("{base} a side"),
        inc => format!("{base} a side, +{inc} s a move"),
    }
}

/// The clock: connected, and each face at the time control's base time
/// (within [`CLOCK_TOLERANCE_S`]; a clock that adds the first move's
/// increment at the start shows base + increment; a running face, the
/// first player's started, may have run down).
fn clock(o: &Observed) -> Item {
    let r = match (o.clock_connected, &o.clock) {
        (Some(false), _) => {
            return Item::fail("The board reports no clock connected.");
        }
        (_, None) => {
            return Item::warn(
                "No clock heard from yet (a board without a clock cable never reports one).",
            );
        }
        (_, Some(r)) => r,
    };
    let faces = faces_text(r, true);
    if let Some(f) = r.flag {
        return Item::fail(format!(
            "The clock shows {faces} (left | right) with a flag on the {} face: set it for the round.",
            f.name()
        ));
    }
    let Some(tc) = &o.context.time_control else {
        return Item::ok(format!(
            "Connected, showing {} (left | right); no time control configured to compare with.",
            faces_text(r, false)
        ));
    };
    let base = tc.initial_seconds();
    let targets = [base, base + tc.increment_seconds()];
    let fits = |f: Face| {
        let secs = r.on(f);
        targets.iter().any(|&t| {
            if r.running == Some(f) {
                secs <= t + CLOCK_TOLERANCE_S
            } else {
                secs.abs_diff(t) <= CLOCK_TOLERANCE_S
            }
        })
    };
    if fits(Face::Left) && fits(Face::Right) {
        Item::ok(format!(
            "Connected, showing {} (left | right): the event's time control ({}).",
            faces_text(r, false),
            time_control_text(tc)
        ))
    } else {
        Item::fail(format!(
            "The clock shows {faces} (left | right), not the event's time control ({}): set it before the round.",
            time_control_text(tc)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Direction;
    use crate::family::Family;
    use crate::setup::BoardSetup;
    use crate::track::Config;

    /// A DGT chess board.
    fn dgt_board() -> BoardSetup {
        BoardSetup::new("d", Family::Dgt, GameId::Chess)
    }

    const START: &str = "rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR";

    /// An open-protocol board of `game` fed `lines`.
    fn open_board(game: GameId, lines: &str) -> BoardPipeline {
        let setup = BoardSetup::new("b", Family::Open, game);
        let mut p = BoardPipeline::new(&setup, Config::default());
        p.handle_bytes(0, Direction::ToBoard, b"?\nboard?\n");
        for (i, line) in lines.lines().enumerate() {
            let t = 10 + i as Millis * 10;
            p.handle_bytes(t, Direction::FromBoard, format!("{line}\n").as_bytes());
        }
        p
    }

    fn up() -> Context {
        Context {
            connected: true,
            port: Some("/dev/ttyACM0".into()),
            time_control: None,
        }
    }

    /// [`up`], the event playing 90 minutes a side and 30 s a move.
    fn timed() -> Context {
        Context {
            time_control: Some(TimeControl::parse("5400+30").unwrap()),
            ..up()
        }
    }

    fn failing(r: &Readiness) -> Vec<&'static str> {
        r.items()
            .iter()
            .filter(|(_, i)| i.status == Status::Fail)
            .map(|(n, _)| *n)
            .collect()
    }

    #[test]
    fn a_board_in_the_start_position_with_its_clock_set_is_ready() {
        let p = open_board(
            GameId::Chess,
            &format!(
                "hello chess 8x8 id=RB-17 name=ReedBoard\nboard {START}\nclock 1:30:00 1:30:00"
            ),
        );
        let r = Readiness::of(&p, timed());
        assert!(r.ready, "{r:#?}");
        assert_eq!(r.worst(), Status::Ok, "{r:#?}");
        assert_eq!(r.identity.message, "Serial RB-17, ReedBoard.");
        assert_eq!(r.connected.message, "Connected on /dev/ttyACM0.");
        assert!(
            r.clock
                .message
                .contains("1:30:00 | 1:30:00 (left | right): the event's"),
            "{r:#?}"
        );
        // The JSON the state carries names every item.
        let json = serde_json::to_value(&r).unwrap();
        for name in Readiness::CHECKS {
            assert!(json[name]["status"].is_string(), "{json}");
        }
        let back: Readiness = serde_json::from_value(json).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn a_wrong_set_up_names_its_squares() {
        // The b1 knight and the c1 bishop swapped.
        let swapped = START.replace("RNBQKBNR", "RBNQKBNR");
        let p = open_board(
            GameId::Chess,
            &format!("hello chess 8x8 id=X\nboard {swapped}"),
        );
        let r = Readiness::of(&p, up());
        assert!(!r.ready);
        assert_eq!(failing(&r), ["setup"], "{r:#?}");
        assert!(r.setup.message.contains("set up wrongly"), "{r:#?}");
        let mut squares = r.setup.squares.clone();
        squares.sort();
        assert_eq!(squares, ["b1", "c1"]);
        assert_eq!(r.orientation.status, Status::Warn);
    }

    #[test]
    fn a_draughts_board_reporting_a_chess_letter_has_a_foreign_piece_code() {
        let mut cells = String::new();
        // The draughts start, dark squares (a1 dark), the first player's
        // men (`M`) on ranks 1-3.
        for rank in (0..8).rev() {
            for file in 0..8 {
                cells.push(match ((file + rank) % 2 == 0, rank) {
                    (true, 0..=2) => 'M',
                    (true, 5..=7) => 'm',
                    _ => '.',
                });
            }
        }
        let foreign = cells.replacen('m', "q", 1);
        let p = open_board(
            GameId::Draughts,
            &format!("hello draughts 8x8 id=D\nboard {cells}\nboard {foreign}"),
        );
        let r = Readiness::of(&p, up());
        assert_eq!(failing(&r), ["pieces"], "{r:#?}");
        assert!(
            r.pieces.message.contains("no draughts set holds")
                && r.pieces.message.contains("not a piece letter"),
            "{r:#?}"
        );
        // Thirty seconds later, with no such line again, it is forgotten.
        let mut p = p;
        p.advance_to(60_000);
        assert!(Readiness::of(&p, up()).ready);
        // Thirteen men of one side: more than a set has.
        let thirteen = cells.replacen('.', "M", 1);
        let p = open_board(
            GameId::Draughts,
            &format!("hello draughts 8x8 id=D\nboard {thirteen}"),
        );
        let r = Readiness::of(&p, up());
        assert!(
            r.pieces.message.contains("13 Black men and kings on")
                && r.pieces.message.contains("(a set has 12)"),
            "{r:#?}"
        );
    }

    #[test]
    fn a_dgt_dump_with_a_code_that_is_no_piece_fails_the_pieces() {
        use boardcast_protocols::dgt::{Message, PieceCode};
        let mut dump = Box::new([PieceCode::Empty; 64]);
        // START lists the squares from a8 on, as DGT counts its fields.
        for (code, letter) in dump.iter_mut().zip(START.chars()) {
            *code = PieceCode::from_fen_char(letter).unwrap_or(PieceCode::Empty);
        }
        let mut bytes = Message::BoardDump(dump.clone()).to_bytes();
        // A code above 15 on d4 (field 35).
        bytes[3 + 35] = 0x1f;
        let mut p = BoardPipeline::new(&dgt_board(), Config::default());
        p.handle_bytes(5, Direction::FromBoard, &bytes);
        let r = Readiness::of(&p, up());
        assert!(r.pieces.status == Status::Fail, "{r:#?}");
        assert!(r.pieces.message.contains("above 15"), "{r:#?}");
        assert_eq!(r.setup.status, Status::Fail, "no board read: {r:#?}");
        // A draw piece on d4 instead: a result piece, no piece of a set.
        dump[35] = PieceCode::Draw;
        let mut p = BoardPipeline::new(&dgt_board(), Config::default());
        p.handle_bytes(
            5,
            Direction::FromBoard,
            &Message::BoardDump(dump).to_bytes(),
        );
        let r = Readiness::of(&p, up());
        assert_eq!(r.pieces.squares, ["d4"], "{r:#?}");
        assert!(r.pieces.message.contains("result piece (draw)"), "{r:#?}");
    }

    #[test]
    fn three_knights_of_one_colour_are_more_than_a_set_has() {
        let extra = START.replace("RNBQKBNR", "RNNQKBNR");
        let p = open_board(GameId::Chess, &format!("board {extra}"));
        let r = Readiness::of(&p, up());
        assert!(
            r.pieces
                .message
                .contains("3 White knights on b1, c1, g1 (a set has 2)"),
            "{r:#?}"
        );
        assert_eq!(r.pieces.squares, ["b1", "c1", "g1"]);
    }

    #[test]
    fn the_clock_is_judged_against_the_time_control() {
        let judge = |clock: &str| {
            let lines = format!("hello chess 8x8 id=C\nboard {START}\n{clock}");
            Readiness::of(&open_board(GameId::Chess, &lines), timed())
        };
        let wrong = judge("clock 0:10:00 0:10:00");
        assert_eq!(failing(&wrong), ["clock"], "{wrong:#?}");
        assert!(
            wrong.clock.message.contains("0:10:00 | 0:10:00")
                && wrong.clock.message.contains("1:30:00 a side, +30 s a move"),
            "{wrong:#?}"
        );
        // One face wrong is enough.
        assert!(!judge("clock 1:30:00 1:00:00").ready);
        // Within the tolerance, with the first increment added, or the
        // first player's clock started: fine.
        for right in [
            "clock 1:29:58 1:30:02",
            "clock 1:30:30 1:30:30",
            "clock 1:29:10 1:30:00 run=left",
        ] {
            let r = judge(right);
            assert_eq!(r.clock.status, Status::Ok, "{right}: {r:#?}");
        }
        // A running face ticking down changes nothing in a check that
        // passes (no state republished every second).
        assert_eq!(
            judge("clock 1:29:10 1:30:00 run=left"),
            judge("clock 1:29:09 1:30:00 run=left")
        );
        assert!(
            judge("clock 1:29:10 1:30:00 run=left")
                .clock
                .message
                .contains("running | 1:30:00"),
        );
        // A running face above the time control is shown as it is.
        let fast = judge("clock 1:30:00 2:00:00 run=right");
        assert!(
            fast.clock.message.contains("1:30:00 | 2:00:00 (running)"),
            "{fast:#?}"
        );
        let none = judge("clock none");
        assert_eq!(failing(&none), ["clock"]);
        let low = judge("clock 1:30:00 1:30:00 battery=low");
        assert_eq!(failing(&low), ["battery"], "{low:#?}");
        let flag = judge("clock 0:00 1:30:00 flag=left");
        assert_eq!(failing(&flag), ["clock"]);
        // No clock heard: a warning, not a failure.
        let p = open_board(GameId::Chess, &format!("board {START}"));
        let r = Readiness::of(&p, timed());
        assert_eq!(r.clock.status, Status::Warn);
        assert_eq!(r.identity.status, Status::Warn, "no hello: {r:#?}");
        assert!(r.ready);
    }

    #[test]
    fn a_turned_board_is_ready_with_a_warning_and_an_offline_one_is_not() {
        let turned: String = START.chars().rev().collect();
        let p = open_board(GameId::Chess, &format!("board {turned}"));
        let r = Readiness::of(&p, up());
        assert!(r.ready, "{r:#?}");
        assert_eq!(r.orientation.status, Status::Warn);
        assert!(r.orientation.message.starts_with("Turned round (Black"));
        let r = Readiness::of(&p, Context::default());
        assert_eq!(failing(&r), ["connected"]);
        let nothing = open_board(GameId::Chess, "");
        let r = Readiness::of(&nothing, up());
        assert_eq!(failing(&r), ["setup"]);
        assert_eq!(r.pieces.status, Status::Warn);
    }

    #[test]
    fn a_game_under_way_or_an_empty_board_is_not_the_start() {
        let e4 = START.replace("PPPPPPPP", "PPPP.PPP").replacen(
            "................................",
            "....................P...........",
            1,
        );
        let p = open_board(GameId::Chess, &format!("board {START}\nboard {e4}"));
        let mut p = p;
        p.advance_to(10_000);
        assert!(
            Readiness::of(&p, up())
                .setup
                .message
                .starts_with("A game is on the board (1 ply")
        );
        let empty = ".".repeat(64);
        let p = open_board(GameId::Chess, &format!("board {empty}"));
        assert_eq!(
            Readiness::of(&p, up()).setup.message,
            "The board is empty: set up the start position."
        );
    }

    #[test]
    fn a_xiangqi_start_with_an_extra_cannon_counts_its_cannons() {
        let start = "rnbakabnr..........c.....c.p.p.p.p.p..................P.P.P.P.P.C.....C..........RNBAKABNR";
        let p = open_board(
            GameId::Xiangqi,
            &format!("hello xiangqi 9x10 id=X\nboard {start}"),
        );
        assert!(Readiness::of(&p, up()).ready);
        let extra = start.replacen("P.P.P.P.P", "PCP.P.P.P", 1);
        let p = open_board(
            GameId::Xiangqi,
            &format!("hello xiangqi 9x10 id=X\nboard {extra}"),
        );
        let r = Readiness::of(&p, up());
        assert!(
            r.pieces.message.contains("3 Red cannons on b3, b2, h2"),
            "{r:#?}"
        );
    }

    /// A sink keeping the states published to it.
    #[derive(Debug, Default, Clone)]
    struct States(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

    impl crate::session::BoardSink for States {
        fn event(&self, _: &crate::event::Event) -> bool {
            true
        }
        fn state(&self, state: &str, _: &str, _: bool) {
            self.0.lock().unwrap().push(state.to_owned());
        }
    }

    #[test]
    fn the_state_carries_the_check_until_the_first_move() {
        use crate::session::{Outputs, Session};
        let setup = BoardSetup {
            time_control: Some(TimeControl::parse("5400+30").unwrap()),
            ..BoardSetup::new("s", Family::Open, GameId::Chess)
        };
        let states = States::default();
        let round =
            crate::sink::round::Round::new(Default::default(), Default::default(), None, None)
                .unwrap();
        let mut session = Session::new(
            &setup,
            Config::default(),
            Outputs::none().with_arbiter(states.clone()),
            round,
            1,
        );
        let last = || -> serde_json::Value {
            serde_json::from_str(states.0.lock().unwrap().last().unwrap()).unwrap()
        };
        session.announce(0);
        assert_eq!(last()["readiness"]["connected"]["status"], "fail");
        session.set_connected(5, "/dev/ttyACM0".into(), "S-1".into());
        session.handle_bytes(
            10,
            Direction::FromBoard,
            format!("board {START}\n").as_bytes(),
        );
        assert_eq!(last()["readiness"]["clock"]["status"], "warn");
        // A clock reading alone changes the check: a new state says so.
        session.handle_bytes(20, Direction::FromBoard, b"clock 0:05:00 0:05:00\n");
        let state = last();
        assert_eq!(state["readiness"]["clock"]["status"], "fail", "{state}");
        assert_eq!(state["readiness"]["ready"], false);
        let e4 = START.replace("PPPPPPPP", "PPPP.PPP").replacen(
            "................................",
            "....................P...........",
            1,
        );
        session.handle_bytes(30, Direction::FromBoard, format!("board {e4}\n").as_bytes());
        session.advance_to(10_000);
        let state = last();
        assert_eq!(state["ply"], 1, "{state}");
        assert!(state.get("readiness").is_none(), "{state}");
    }
}
