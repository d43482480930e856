//! The `[event]` section: the tournament (name, site, round), its games'
//! rules and time control.

use std::path::PathBuf;

use serde::Deserialize;
use toml::Spanned;

use crate::config_file::{ConfigError, Source, set};
use crate::text::{MAX_ROUND, check_text};

/// `[event]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEvent {
    /// PGN `Event`.
    pub name: Option<String>,
    /// PGN `Site`.
    pub site: Option<String>,
    /// PGN `Date` (`YYYY.MM.DD`).
    pub date: Option<Spanned<String>>,
    /// The round being played.
    pub round: Option<u32>,
    /// Pairings file (CSV, TOML or FIDE TRF).
    pub pairings: Option<String>,
    /// PGN folder for relay tools.
    pub pgn_dir: Option<String>,
    /// Time control of every board.
    pub time_control: Option<Spanned<String>>,
    /// `auto`, `standard` or `chess960`.
    pub variant: Option<Spanned<String>>,
    /// The xiangqi move limit (`60/6`, `none`).
    pub move_limit: Option<Spanned<String>>,
}

/// `[event]`, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Name, site, date and round.
    pub info: crate::tournament::EventInfo,
    /// The pairings file, reloaded when saved (and on SIGHUP, on Unix).
    pub pairings: Option<PathBuf>,
    /// `[event] round` when the file sets it (not the default layer): the
    /// round a TRF pairings file is read for; unset, its last paired round.
    pub asked_round: Option<u32>,
    /// The PGN folder relay tools read.
    pub pgn_dir: Option<PathBuf>,
    /// The event's time control.
    pub time_control: Option<crate::clock::TimeControl>,
    /// The rules it fixes for its games: the chess variant
    /// (`[event] variant`), the xiangqi move limit (`[event] move_limit`;
    /// Art. 6: the event fixes it).
    pub options: crate::games::GameOptions,
}

/// `[event]`: name, site, date and round (checked: they reach PGN tags
/// and file names), the pairings file, the PGN folder, the time control,
/// and the chess variant when one is set. `[bridge] event` and `site`
/// (the first keys for these, given here as `bridge`) still work.
pub fn event(
    raw: Option<RawEvent>,
    defaults: Option<RawEvent>,
    bridge: (&str, &str),
    src: &Source,
) -> Result<Event, ConfigError> {
    let (e, de) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let mut info = crate::tournament::EventInfo::default();
    let known = |v: &str| (v != "?").then(|| v.to_string());
    let (bridge_event, bridge_site) = bridge;
    set(&mut info.name, e.name.or(de.name).or(known(bridge_event)));
    set(&mut info.site, e.site.or(de.site).or(known(bridge_site)));
    if let Some(date) = e.date.or(de.date) {
        info.date = pgn_date(date, src)?;
    }
    let asked_round = e.round;
    set(&mut info.round, e.round.or(de.round));
    let time_control = match e.time_control.or(de.time_control) {
        Some(tc) => Some(
            crate::clock::TimeControl::parse(tc.get_ref()).map_err(|err| {
                src.invalid(Some(tc.span()), format!("event.time_control: {err}"))
            })?,
        ),
        None => None,
    };
    let move_limit = match e.move_limit.or(de.move_limit) {
        Some(l) => Some(
            l.get_ref()
                .parse()
                .map_err(|err| src.invalid(Some(l.span()), format!("event.move_limit: {err}")))?,
        ),
        None => None,
    };
    let variant = variant(e.variant.or(de.variant), src)?;
    for (key, value) in [("event.name", &info.name), ("event.site", &info.site)] {
        check_text(key, Some(value)).map_err(|m| src.invalid(None, m.to_string()))?;
    }
    if !(1..=MAX_ROUND).contains(&info.round) {
        return Err(src.invalid(
            None,
            format!(
                "event.round {} is out of range (1 to {MAX_ROUND})",
                info.round
            ),
        ));
    }
    let event = Event {
        info,
        pairings: e.pairings.or(de.pairings).map(|p| src.resolve(&p)),
        asked_round,
        pgn_dir: e.pgn_dir.or(de.pgn_dir).map(|p| src.resolve(&p)),
        time_control,
        options: crate::games::GameOptions {
            variant,
            move_limit,
        },
    };
    Ok(event)
}

/// `event.date`, as PGN writes dates: `YYYY.MM.DD`, `?` for what is not
/// known.
fn pgn_date(date: Spanned<String>, src: &Source) -> Result<String, ConfigError> {
    let ok = date.get_ref().len() == 10
        && date.get_ref().char_indices().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '.'
            } else {
                c.is_ascii_digit() || c == '?'
            }
        });
    if !ok {
        return Err(src.invalid(
            Some(date.span()),
            format!("event.date `{}` is not YYYY.MM.DD", date.get_ref()),
        ));
    }
    Ok(date.into_inner())
}

/// `event.variant`: `auto` (the default), `standard` or `chess960`.
fn variant(
    raw: Option<Spanned<String>>,
    src: &Source,
) -> Result<crate::track::Variant, ConfigError> {
    let Some(v) = raw else {
        return Ok(crate::track::Variant::default());
    };
    v.get_ref().parse::<crate::track::Variant>().map_err(|_| {
        src.invalid(
            Some(v.span()),
            format!(
                "event.variant `{}`: expected auto, standard or chess960",
                v.get_ref()
            ),
        )
    })
}
