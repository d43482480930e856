//! What the games' readers share (the chess reader and the generic one,
//! which neither owns): where they report what is not an event (the
//! pipeline's counters and diagnostics), and a game's record resolved to
//! its position and moves.

use std::collections::VecDeque;

use super::{Diagnostic, PipelineStats};
use crate::games::Game;

/// Where a reader reports what is not an event: the pipeline's counters
/// and diagnostics.
#[derive(Debug)]
pub struct Report<'a> {
    /// The pipeline's counters.
    pub stats: &'a mut PipelineStats,
    /// The pipeline's diagnostics.
    pub diagnostics: &'a mut VecDeque<Diagnostic>,
}

/// The start position and moves a game's record names: `start` a FEN of
/// the game, `ids` its moves' ids (UCI, draughts paths, ICCS), each legal
/// in turn. The error names the first that is not.
pub(super) fn resolve<G: Game>(
    rules: &G,
    start: &str,
    ids: &[String],
) -> Result<(G::Position, Vec<G::Move>), String> {
    use crate::games::GamePosition;
    let position = rules
        .parse_position(start)
        .ok_or_else(|| format!("`{start}` is no {} position", rules.game_id().name()))?;
    let mut at = position.clone();
    let mut moves = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let m = at
            .legal_moves()
            .find(|m| at.id(m) == *id)
            .ok_or_else(|| format!("move {} (`{id}`) is not legal there", i + 1))?;
        at = at.play(&m);
        moves.push(m);
    }
    Ok((position, moves))
}
