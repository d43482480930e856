//! `boardcast simulate`: games played on a simulated board, one capture
//! per game (chess on a DGT board; draughts and xiangqi on an
//! open-protocol or Tabutronic board).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use boardcast_sim::{self as sim, Clean, Human, Profile, Real};

use crate::args::{GameBoard, OtherGameName, ProfileName};

/// Draughts or xiangqi games on a simulated open-protocol board, one
/// capture per game.
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate_open(
    game: OtherGameName,
    games: PathBuf,
    out: &Path,
    profile: ProfileName,
    seed: u64,
    rotated: bool,
    limit: Option<usize>,
    pieces: bool,
    board: GameBoard,
) -> Result<()> {
    use boardcast_sim::open::{self, OtherGameProfile};
    if board == GameBoard::Tabutronic && game != OtherGameName::Draughts {
        bail!("--board tabutronic carries draughts only (an 8x8 board)");
    }
    let text =
        fs::read_to_string(&games).with_context(|| format!("reading {}", games.display()))?;
    if profile == ProfileName::Real {
        bail!("--profile real plays chess only; draughts and xiangqi take clean or human");
    }
    let profile = OtherGameProfile {
        human: profile == ProfileName::Human,
        pieces,
        rotated,
        real: false,
    };
    let sessions: Vec<(String, open::OtherGameSession)> = match game {
        OtherGameName::Draughts => {
            let games_read = boardcast_rules::draughts::read_pdn(&text)
                .with_context(|| format!("reading {}", games.display()))?;
            games_read
                .iter()
                .take(limit.unwrap_or(usize::MAX))
                .enumerate()
                .map(|(i, g)| {
                    (
                        "draughts".to_string(),
                        open::simulate_draughts(&g.moves, profile, seed.wrapping_add(i as u64)),
                    )
                })
                .collect()
        }
        OtherGameName::Xiangqi => open::read_xiangqi_games(&text)
            .with_context(|| format!("reading {}", games.display()))?
            .iter()
            .take(limit.unwrap_or(usize::MAX))
            .enumerate()
            .map(|(i, moves)| {
                (
                    "xiangqi".to_string(),
                    open::simulate_xiangqi(moves, profile, seed.wrapping_add(i as u64)),
                )
            })
            .collect(),
    };
    if sessions.is_empty() {
        bail!("{}: no games", games.display());
    }
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for (i, (name, session)) in sessions.iter().enumerate() {
        let meta = vec![
            ("board".to_string(), "1".to_string()),
            ("game".to_string(), name.clone()),
        ];
        let path = out.join(format!("game-{:04}.capture", i + 1));
        let text = match board {
            GameBoard::Open => open::capture_text(session, &meta, profile.human),
            GameBoard::Tabutronic => open::tabutronic_capture_text(session, &meta[..1]),
        };
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Chess games of a PGN file on a simulated DGT board, one capture per
/// game.
pub(crate) fn simulate(
    pgn: &Path,
    out: &Path,
    profile: ProfileName,
    seed: u64,
    rotated: bool,
    limit: Option<usize>,
) -> Result<()> {
    let file = fs::File::open(pgn).with_context(|| format!("opening {}", pgn.display()))?;
    let games = sim::read_games(std::io::BufReader::new(file))
        .with_context(|| format!("reading {}", pgn.display()))?;
    if games.is_empty() {
        bail!("{}: no games", pgn.display());
    }
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for (i, game) in games.iter().take(limit.unwrap_or(usize::MAX)).enumerate() {
        let mut profile: Box<dyn Profile> = match profile {
            ProfileName::Clean => Box::new(Clean),
            ProfileName::Human => Box::new(Human::default()),
            ProfileName::Real => Box::new(Real::default()),
        };
        let session = sim::simulate(game, profile.as_mut(), seed.wrapping_add(i as u64), rotated);
        let meta = vec![("board".to_string(), "1".to_string())];
        let path = out.join(format!("game-{:04}.capture", i + 1));
        let text = sim::dgt::capture_text(&session, &meta);
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
