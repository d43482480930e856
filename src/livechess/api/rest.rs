//! The REST bodies of the LiveChess imitation: tournaments, rounds, games
//! and players, shaped as DGT LiveChess 2 shapes them.

use super::*;

/// The event around the boards, for the tournament routes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TournamentInfo {
    /// Its UUID (derived from the bridge and event names).
    pub uuid: String,
    /// Event name.
    pub name: String,
    /// Site.
    pub site: String,
    /// Date, `YYYY.MM.DD` as in PGN.
    pub date: String,
    /// The configured round.
    pub round: u32,
}

/// The game UUID of board `number` in round `round`.
pub fn game_uuid(tournament: &str, round: u32, number: u32) -> String {
    uuid_for(&format!("{tournament}/{round}/{number}"))
}

/// The number of rounds: the highest round any board or the
/// configuration names (at least 1).
pub fn rounds(info: &TournamentInfo, views: &[BoardView]) -> u32 {
    views
        .iter()
        .map(|v| v.round)
        .chain([info.round, 1])
        .max()
        .unwrap_or(1)
}

/// `GET /api/v1.0/tournaments` (JSON text, keys in LiveChess's order).
pub fn tournaments(info: &TournamentInfo, views: &[BoardView]) -> String {
    #[derive(Serialize)]
    struct T<'a> {
        uuid: &'a str,
        description: &'a str,
        rounds: u32,
    }
    text(&[T {
        uuid: &info.uuid,
        description: &info.name,
        rounds: rounds(info, views),
    }])
}

fn text<T: Serialize + ?Sized>(body: &T) -> String {
    serde_json::to_string(body).expect("bodies serialise")
}

/// `GET /api/v1.0/tournament/{uuid}`: `eboards` lists serial numbers by
/// board number (board 1 first).
pub fn tournament(info: &TournamentInfo, views: &[BoardView]) -> String {
    #[derive(Serialize)]
    struct T<'a> {
        uuid: &'a str,
        name: &'a str,
        description: &'a str,
        location: &'a str,
        country: Option<&'a str>,
        rounds: u32,
        eboards: Vec<&'a str>,
    }
    let mut sorted: Vec<&BoardView> = views.iter().collect();
    sorted.sort_by_key(|v| v.number);
    text(&T {
        uuid: &info.uuid,
        name: &info.name,
        description: &info.name,
        location: &info.site,
        country: None,
        rounds: rounds(info, views),
        eboards: sorted.iter().map(|v| v.serialnr.as_str()).collect(),
    })
}

#[derive(Serialize)]
struct LcPlayer {
    fname: Option<String>,
    mname: Option<String>,
    lname: Option<String>,
    title: Option<String>,
    federation: Option<String>,
    gender: Option<String>,
    fideid: Option<u64>,
}

fn player(p: Option<&Value>) -> LcPlayer {
    let get = |k: &str| p.and_then(|p| p.get(k)).and_then(Value::as_str);
    let name = get("name").unwrap_or("");
    let (first, last) = match name.split_once(',') {
        Some((l, f)) => (f.trim(), l.trim()),
        None => ("", name.trim()),
    };
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    LcPlayer {
        fname: some(first),
        mname: None,
        lname: some(last),
        title: get("title").map(str::to_string),
        federation: get("federation").map(str::to_string),
        gender: None,
        fideid: p.and_then(|p| p.get("fide_id")).and_then(Value::as_u64),
    }
}

/// LiveChess's result names: `WHITEWIN`, `BLACKWIN`, `DRAW`; `null` while
/// the game is on.
pub fn result_name(result: Option<&str>) -> Option<&'static str> {
    match result? {
        "1-0" => Some("WHITEWIN"),
        "0-1" => Some("BLACKWIN"),
        "1/2-1/2" => Some("DRAW"),
        _ => None,
    }
}

/// `GET /api/v1.0/round/{uuid}/{index}` (`index` 0-based: round
/// `index + 1`): the boards whose current game belongs to that round.
pub fn round(info: &TournamentInfo, views: &[BoardView], index: u32) -> String {
    #[derive(Serialize)]
    struct P {
        nr: u32,
        uuid: String,
        white: LcPlayer,
        black: LcPlayer,
        live: bool,
        result: Option<&'static str>,
    }
    #[derive(Serialize)]
    struct R {
        nr: u32,
        date: Option<String>,
        pairings: Vec<P>,
    }
    let nr = index + 1;
    let mut boards: Vec<&BoardView> = views.iter().filter(|v| v.round == nr).collect();
    boards.sort_by_key(|v| v.number);
    let date = {
        let d: Vec<&str> = info.date.split('.').collect();
        (d.len() == 3 && d.iter().all(|p| p.chars().all(|c| c.is_ascii_digit())))
            .then(|| d.join("-"))
    };
    text(&R {
        nr,
        date,
        pairings: boards
            .iter()
            .map(|v| P {
                nr: v.number,
                uuid: game_uuid(&info.uuid, nr, v.number),
                white: player(v.white.as_ref()),
                black: player(v.black.as_ref()),
                live: v.game > 0 && v.result.is_none(),
                result: result_name(v.result.as_deref()),
            })
            .collect(),
    })
}

/// `GET /api/v1.0/game/{uuid}`: the current game of the board it names,
/// moves as `"SAN clk"` (seconds left after the move) when the clock
/// told it, else `"SAN"`.
pub fn game(info: &TournamentInfo, views: &[BoardView], uuid: &str) -> Option<String> {
    #[derive(Serialize)]
    struct G {
        chess960: Option<u32>,
        result: Option<&'static str>,
        comment: Option<String>,
        clock: Option<ClockView>,
        moves: Vec<String>,
    }
    let v = views
        .iter()
        .find(|v| game_uuid(&info.uuid, v.round, v.number) == uuid)?;
    let moves = v
        .sans
        .iter()
        .zip(v.clks.iter().chain(std::iter::repeat(&None)))
        .map(|(san, clk)| match clk {
            Some(c) => format!("{san} {c}"),
            None => san.clone(),
        })
        .collect();
    Some(text(&G {
        chess960: (!v.chess960).then_some(518),
        result: result_name(v.result.as_deref()),
        comment: None,
        clock: v.clock,
        moves,
    }))
}
