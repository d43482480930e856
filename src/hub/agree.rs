//! How the hub's folded game is brought to agree with a bridge's retained
//! state: the game rebuilt from the state when events were missed
//! ([`reconcile`]), and the events that take the delayed public's game to
//! the live one ([`catch_up`]). Pure: time is passed in.

use serde_json::Value;

use crate::event::{Event, EventKind, GameId};
use crate::sink::record::{GameLog, GameRecord};

/// The events that take the public's game from `old` (what the delayed
/// view will show once everything waiting is out) to `new` (the live game
/// as the events and the states made it): a new game, moves the events did
/// not bring, a takeback, a result. Nothing when they agree, nor for a new
/// game without a move yet (its `game_start` event usually follows the
/// state; a later state brings it if it never comes).
pub(super) fn catch_up(
    board: &str,
    old: Option<&GameRecord>,
    new: Option<&GameRecord>,
) -> Vec<Event> {
    let Some(new) = new else {
        return Vec::new();
    };
    // Another game: another start, or a finished game whose moves differ.
    let old =
        old.filter(|o| o.start_fen == new.start_fen && (o.result.is_none() || o.ucis == new.ucis));
    if old.is_none() && new.ucis.is_empty() && new.result.is_none() {
        return Vec::new();
    }
    let event = |kind| Event {
        board: board.to_string(),
        t_ms: 0,
        game: new.game,
        kind,
    };
    let mut out = Vec::new();
    let common = match old {
        Some(o) => o
            .ucis
            .iter()
            .zip(&new.ucis)
            .take_while(|(a, b)| a == b)
            .count(),
        None => {
            out.push(event(EventKind::GameStart {
                position: new.start_fen.clone(),
                chess960: (new.game == GameId::Chess).then_some(new.chess960),
                rotated: new.rotated,
            }));
            0
        }
    };
    if let Some(o) = old
        && o.ucis.len() > common
        && new.ucis.len() == common
    {
        out.push(event(EventKind::Takeback {
            to_ply: common as u32,
            position: new.fen.clone(),
        }));
    }
    for i in common..new.ucis.len() {
        out.push(event(EventKind::Move {
            ply: i as u32 + 1,
            side: new.side_of_ply(i),
            notation: new.sans[i].clone(),
            id: new.ucis[i].clone(),
            position: new
                .fens
                .get(i)
                .filter(|f| !f.is_empty())
                .unwrap_or(&new.fen)
                .clone(),
            irregular: new.irregular.get(i).copied().unwrap_or(false),
        }));
    }
    let old_result = old.and_then(|o| o.result.as_ref());
    if let Some(result) = new.result.as_ref().filter(|r| Some(*r) != old_result) {
        out.push(event(EventKind::GameEnd {
            result: result.clone(),
            reason: new.reason.clone().unwrap_or_default(),
            winner: new.game.winner(result),
        }));
    }
    out
}

/// The game a board's retained state names (`game_type`; chess when absent,
/// as bridges before other games wrote none).
pub(super) fn game_of(state: &Value) -> GameId {
    state["game_type"]
        .as_str()
        .and_then(GameId::from_name)
        .unwrap_or_default()
}

/// The keys of a state's game fields: the start position, the position
/// now, the notation and the move ids (chess `start_fen`, `fen`, `moves`,
/// `uci`; the other games `start_position`, `position`, `notation`, `id`).
pub(super) fn state_keys(game: GameId) -> (&'static str, &'static str, &'static str, &'static str) {
    match game {
        GameId::Chess => ("start_fen", "fen", "moves", "uci"),
        GameId::Draughts | GameId::Xiangqi => ("start_position", "position", "notation", "id"),
    }
}

/// Makes the folded game agree with a board's retained live state: when
/// the moves, the start or the result differ (events missed), the game is
/// rebuilt from the state (without the clock times only events carry).
pub(super) fn reconcile(log: &mut GameLog, state: &Value, now_ms: u64) {
    let game = game_of(state);
    let (start_key, now_key, notation_key, ids_key) = state_keys(game);
    let Some(start) = state[start_key].as_str() else {
        return;
    };
    let strings = |k: &str| -> Vec<String> {
        state[k]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (sans, ucis) = (strings(notation_key), strings(ids_key));
    let result = state["result"].as_str().map(str::to_string);
    let same = log
        .current()
        .is_some_and(|g| g.start_fen == start && g.ucis == ucis);
    if !same {
        tracing::debug!(
            board = state["board"].as_str().unwrap_or("?"),
            "the folded game differs from the state: taking the state's"
        );
        let started = log
            .current()
            .filter(|g| g.start_fen == start)
            .map(|g| (g.started_ms, g.date.clone()));
        let fresh = log
            .current()
            .is_none_or(|g| g.start_fen != start || g.result.is_some());
        if fresh {
            log.handle(&Event {
                board: String::new(),
                t_ms: 0,
                game,
                kind: EventKind::GameStart {
                    position: start.to_string(),
                    chess960: (game == GameId::Chess)
                        .then(|| state["chess960"].as_bool().unwrap_or(false)),
                    rotated: state["rotated"].as_bool().unwrap_or(false),
                },
            });
        }
        let fen = state[now_key].as_str().unwrap_or(start).to_string();
        if let Some(g) = log.current_mut() {
            let n = sans.len();
            g.sans = sans;
            g.ucis = ucis;
            g.times = vec![0; n];
            g.fens = vec![String::new(); n];
            if let Some(last) = g.fens.last_mut() {
                last.clone_from(&fen);
            }
            g.irregular = vec![false; n];
            g.clks = vec![None; n];
            g.emts = vec![None; n];
            g.fen = fen;
            let (t, date) = started.unwrap_or((0, None));
            g.started_ms = t;
            g.date = date.or_else(|| Some(crate::wall::pgn_date_at(now_ms)));
        }
    }
    if let Some(g) = log.current_mut()
        && g.result.is_none()
        && result.is_some()
    {
        g.result = result;
        g.reason = state["reason"].as_str().map(str::to_string);
    }
}
