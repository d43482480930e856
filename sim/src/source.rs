//! Games to simulate, read from PGN files.

use std::io;
use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};

use boardcast::games::chess::{Move, Position};

/// A game from a PGN file: its start position and mainline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceGame {
    /// The start position.
    pub start: Position,
    /// The mainline.
    pub moves: Vec<Move>,
    /// SAN of the mainline, as the file wrote it (normalised by the rules).
    pub sans: Vec<String>,
    /// Tags in file order.
    pub tags: Vec<(String, String)>,
}

/// Why a game could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Reading the file failed.
    #[error("reading PGN: {0}")]
    Io(#[from] io::Error),
    /// A game's FEN tag is not a legal position.
    #[error("game {game}: bad FEN tag `{fen}`")]
    BadFen {
        /// 1-based game number.
        game: usize,
        /// The tag value.
        fen: String,
    },
    /// A move is not legal.
    #[error("game {game}: illegal or unreadable move `{san}` at ply {ply}")]
    BadMove {
        /// 1-based game number.
        game: usize,
        /// 1-based ply.
        ply: usize,
        /// The move text.
        san: String,
    },
}

struct Collect {
    game: usize,
}

struct Movetext {
    pos: Position,
    start: Position,
    moves: Vec<Move>,
    sans: Vec<String>,
    tags: Vec<(String, String)>,
    error: Option<SourceError>,
}

impl Visitor for Collect {
    type Tags = Vec<(String, String)>;
    type Movetext = Movetext;
    type Output = Result<SourceGame, SourceError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.game += 1;
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        let get = |k: &str| tags.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let chess960 = get("Variant").is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("960") || v.contains("fischer")
        });
        let start = match get("FEN") {
            Some(fen) => match Position::from_fen(&fen, chess960) {
                Some(p) => p,
                None => {
                    return ControlFlow::Break(Err(SourceError::BadFen {
                        game: self.game,
                        fen,
                    }));
                }
            },
            None => Position::standard(),
        };
        ControlFlow::Continue(Movetext {
            pos: start.clone(),
            start,
            moves: Vec::new(),
            sans: Vec::new(),
            tags,
            error: None,
        })
    }

    fn san(&mut self, mt: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        if mt.error.is_some() {
            return ControlFlow::Continue(());
        }
        let text = san.to_string();
        match mt.pos.parse_san(&text) {
            Some(m) => {
                mt.sans.push(mt.pos.san(m));
                mt.pos = mt.pos.play(m);
                mt.moves.push(m);
            }
            None => {
                mt.error = Some(SourceError::BadMove {
                    game: self.game,
                    ply: mt.moves.len() + 1,
                    san: text,
                })
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(
        &mut self,
        _mt: &mut Self::Movetext,
    ) -> ControlFlow<Self::Output, pgn_reader::Skip> {
        ControlFlow::Continue(pgn_reader::Skip(true))
    }

    fn end_game(&mut self, mt: Self::Movetext) -> Self::Output {
        if let Some(e) = mt.error {
            return Err(e);
        }
        Ok(SourceGame {
            start: mt.start,
            moves: mt.moves,
            sans: mt.sans,
            tags: mt.tags,
        })
    }
}

/// Reads every game of a PGN text.
pub fn read_games(input: impl io::Read) -> Result<Vec<SourceGame>, SourceError> {
    let mut reader = Reader::new(input);
    let mut visitor = Collect { game: 0 };
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut visitor)? {
        games.push(game?);
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_standard_and_chess960_games() {
        let pgn = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 (2. f4) Nc6 *\n\n[Variant \"Chess960\"]\n[FEN \"nrqkbrnb/pppppppp/8/8/8/8/PPPPPPPP/NRQKBRNB w KQkq - 0 1\"]\n\n1. d3 d6 *\n";
        let games = read_games(pgn.as_bytes()).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].sans, ["e4", "e5", "Nf3", "Nc6"]);
        assert!(games[1].start.is_chess960());
        assert_eq!(games[1].moves.len(), 2);
    }

    #[test]
    fn an_illegal_move_names_game_and_ply() {
        let err = read_games("1. e4 e4 *\n".as_bytes()).unwrap_err();
        assert!(matches!(
            err,
            SourceError::BadMove {
                game: 1,
                ply: 2,
                ..
            }
        ));
    }
}
