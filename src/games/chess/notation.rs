//! Chess notation checks for callers outside the chess folder.

use shakmaty::fen::Fen;

/// Whether `text` is a FEN as far as its syntax goes (the position may
/// still be illegal: see [`super::Position::from_fen`]).
pub fn is_fen(text: &str) -> bool {
    text.parse::<Fen>().is_ok()
}
