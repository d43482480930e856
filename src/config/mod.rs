//! The daemon's configuration: TOML text in, a validated [`Config`] out.
//!
//! Two steps, as in ripgrep's low-level and high-level arguments:
//!
//! 1. The text is parsed into raw tables ([`RawConfig`], serde with
//!    `deny_unknown_fields`), so a misspelt key is an error that names the
//!    key and its line.
//! 2. The raw tables of the user's file are laid over those of
//!    `config/default.toml` (built into the binary: the bottom layer, and
//!    the commented reference of every key), and the result is checked and
//!    turned into typed values by [`Config::from_raw`], one section after
//!    the other.
//!
//! As in vector, each section lives beside the component that reads it:
//! its raw table, its typed value and the function that checks one and
//! makes the other.
//!
//! | section | file |
//! | --- | --- |
//! | `[bridge]`, `[mqtt]` | `src/mqtt/config.rs` |
//! | `[serial]`, `[recorder]` | `src/port/config.rs` |
//! | `[[board]]` | `src/setup/config.rs` |
//! | `[event]` | `src/tournament/config.rs` |
//! | `[reconstructor]` | `src/track/config.rs` |
//! | `[control]` | `src/control/config.rs` |
//! | `[web]` | `src/web/config.rs` |
//! | `[broadcast]` | `src/delay/config.rs` |
//! | `[livechess]` | `src/livechess/config.rs` |
//! | `[lichess]` | `src/lichess/config.rs` |
//! | `[log]` | `log.rs` here: the process's own log, set up by `main` |
//!
//! What the sections share (the one-line [`ConfigError`], the file a
//! section comes from, a value laid over its default) is in
//! [`crate::config_file`], below every component. This module is above
//! them: it only puts the sections together, and no component imports
//! it. The hub's configuration ([`crate::hub::config`]) reads the same
//! sections from its own file.
//!
//! Every error is one line: `FILE: line N: what is wrong`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::track;

mod log;

pub use crate::config_file::{ConfigError, Source, parse_toml};
pub use crate::control::config::{Control, RawControl, control};
pub use crate::delay::config::{Broadcast, RawBroadcast, broadcast};
pub use crate::lichess::config::{Lichess, RawLichess, lichess};
pub use crate::livechess::config::{RawLiveChess, livechess, livechess_limits};
pub use crate::mqtt::config::{
    Bridge, BrokerUrl, BrokerUrls, Embedded, Mqtt, RawBridge, RawMqtt, RawTls, Tls, bridge, mqtt,
    parse_url,
};
pub use crate::port::config::{RawRecorder, RawSerial, Serial, recorder, serial};
pub use crate::setup::config::{
    Board, MEMORY_PREFIX, PortSpec, RawBoard, RawPorts, boards, is_device_name, is_pattern,
};
pub use crate::tournament::config::{Event, RawEvent, event};
pub use crate::track::config::{RawReconstructor, reconstructor};
pub use crate::web::config::{RawWeb, WebLogin, web, web_login};
pub use log::*;

/// The default configuration, every key commented: the bottom layer.
pub const DEFAULT_TOML: &str = include_str!("../../config/default.toml");

/// The configuration as written: every key optional, unknown keys rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// `[bridge]`.
    pub bridge: Option<RawBridge>,
    /// `[mqtt]`.
    pub mqtt: Option<RawMqtt>,
    /// `[serial]`.
    pub serial: Option<RawSerial>,
    /// `[recorder]`.
    pub recorder: Option<RawRecorder>,
    /// `[log]`.
    pub log: Option<RawLog>,
    /// `[reconstructor]`.
    pub reconstructor: Option<RawReconstructor>,
    /// `[event]`.
    pub event: Option<RawEvent>,
    /// `[web]`.
    pub web: Option<RawWeb>,
    /// `[broadcast]`.
    pub broadcast: Option<RawBroadcast>,
    /// `[control]`.
    pub control: Option<RawControl>,
    /// `[livechess]`.
    pub livechess: Option<RawLiveChess>,
    /// `[lichess]`.
    pub lichess: Option<RawLichess>,
    /// `[[board]]`.
    pub board: Option<Vec<RawBoard>>,
}

/// The validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// This process.
    pub bridge: Bridge,
    /// The broker.
    pub mqtt: Mqtt,
    /// Serial line behaviour common to all boards.
    pub serial: Serial,
    /// Where captures go, if anywhere.
    pub recorder: Option<PathBuf>,
    /// Logging.
    pub log: Log,
    /// Reconstructor tunables.
    pub reconstructor: track::Config,
    /// The event around the boards.
    pub event: Event,
    /// The boards, in file order.
    pub boards: Vec<Board>,
    /// Where the live page is served, if anywhere (`[web] listen`).
    pub web: Option<std::net::SocketAddr>,
    /// Operator commands.
    pub control: Control,
    /// The public broadcast delay (`[broadcast]`).
    pub broadcast: Broadcast,
    /// Where the LiveChess-compatible API is served, if anywhere
    /// (`[livechess] listen`).
    pub livechess: Option<std::net::SocketAddr>,
    /// The live page's limits (`[web]`).
    pub web_limits: crate::listener::Limits,
    /// The arbiter view's login (`[web] arbiter_password`, `session_s`).
    pub web_login: WebLogin,
    /// The LiveChess API's limits (`[livechess]`).
    pub livechess_limits: (crate::listener::Limits, crate::listener::SocketLimits),
    /// The push of the round's public PGN to a lichess broadcast round,
    /// if any (`[lichess] round`).
    pub lichess: Option<Lichess>,
}

impl Config {
    /// Reads and validates a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.to_owned(),
            error,
        })?;
        Config::parse(&text, path)
    }

    /// Validates configuration text; `path` names it in errors and anchors
    /// relative paths (its folder).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let raw = parse_raw(text, path)?;
        Config::from_raw(raw, defaults(), text, path)
    }

    /// Lays `raw` over `defaults` and validates the result, one section
    /// after the other. `text` is the user's file, for line numbers.
    pub fn from_raw(
        raw: RawConfig,
        defaults: RawConfig,
        text: &str,
        path: &Path,
    ) -> Result<Config, ConfigError> {
        let src = Source::new(text, path);
        let bridge = bridge(raw.bridge, defaults.bridge, &src)?;
        let mqtt = mqtt(
            raw.mqtt,
            defaults.mqtt,
            &format!("boardcast-{}", bridge.name),
            &src,
        )?;
        let mut control = control(raw.control, defaults.control, &src)?;
        let serial = serial(raw.serial, defaults.serial, &src)?;
        let recorder = recorder(raw.recorder, defaults.recorder, &src);
        control.nonces = recorder.as_ref().map(|d| d.join("nonces.jsonl"));
        let log = log(raw.log, defaults.log, &src)?;
        let reconstructor = reconstructor(raw.reconstructor, defaults.reconstructor);
        let event = event(
            raw.event,
            defaults.event,
            (&bridge.event, &bridge.site),
            &src,
        )?;
        let boards = boards(raw.board.unwrap_or_default(), &event, &src)?;
        let web_login = web_login(raw.web.as_ref(), defaults.web.as_ref(), &src)?;
        let (web, web_limits) = web(raw.web, defaults.web, &src)?;
        let broadcast = broadcast(raw.broadcast, defaults.broadcast, &src)?;
        let livechess_limits =
            livechess_limits(raw.livechess.as_ref(), defaults.livechess.as_ref(), &src)?;
        let livechess = livechess(raw.livechess, defaults.livechess, &src)?;
        let lichess = lichess(raw.lichess, defaults.lichess, &src)?;
        Ok(Config {
            bridge,
            mqtt,
            serial,
            recorder,
            log,
            reconstructor,
            event,
            boards,
            web,
            broadcast,
            control,
            livechess,
            web_limits,
            web_login,
            livechess_limits,
            lichess,
        })
    }
}

/// The built-in defaults ([`DEFAULT_TOML`]) as raw tables.
pub fn defaults() -> RawConfig {
    parse_raw(DEFAULT_TOML, Path::new("config/default.toml"))
        .expect("the built-in default configuration parses")
}

/// Parses TOML into raw tables, with one-line errors naming the line.
pub fn parse_raw(text: &str, path: &Path) -> Result<RawConfig, ConfigError> {
    parse_toml(text, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    use crate::config_file::parse_duration;
    use crate::family::Family;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("/etc/boardcast/test.toml"))
    }

    #[test]
    fn the_default_file_is_a_valid_configuration_with_no_boards() {
        let c = parse("").unwrap();
        assert!(c.boards.is_empty());
        assert_eq!(c.mqtt.host, "127.0.0.1");
        assert_eq!(c.mqtt.port, 1883);
        assert_eq!(c.mqtt.prefix, "boardcast");
        assert_eq!(c.mqtt.client_id, "boardcast-boardcast");
        assert_eq!(c.reconstructor, track::Config::default());
        assert_eq!(c.log.format, LogFormat::Text);
        assert_eq!(c.recorder, None);
        assert_eq!(c.mqtt.tls, None);
    }

    #[test]
    fn the_default_file_sets_every_key_it_documents() {
        // Every key is given in default.toml (not only in comments), so the
        // layering never falls back to a value hidden in the code.
        let raw = parse_raw(DEFAULT_TOML, Path::new("default.toml")).unwrap();
        let m = raw.mqtt.unwrap();
        assert!(m.url.is_some() && m.prefix.is_some() && m.queue.is_some());
        assert!(m.keep_alive_s.is_some() && m.reconnect_max_ms.is_some());
        let t = m.tls.unwrap();
        assert!(t.enabled.is_some() && t.ca_file.is_some() && t.client_key_file.is_some());
        let s = raw.serial.unwrap();
        assert!(s.poll_ms.is_some() && s.silence_ms.is_some() && s.handshake_ms.is_some());
        assert!(s.bus_gap_ms.is_some());
        let r = raw.reconstructor.unwrap();
        assert!(r.settle_base_ms.is_some() && r.budget.is_some() && r.depth.is_some());
        assert!(r.final_ms.is_some() && r.provisional_ms.is_some());
        assert!(raw.log.unwrap().level.is_some());
        assert!(raw.recorder.unwrap().dir.is_some());
    }

    #[test]
    fn the_example_file_is_valid() {
        let text = include_str!("../../config/example.toml");
        let c = parse(text).unwrap();
        assert_eq!(c.boards.len(), 5);
        assert_eq!(c.bridge.name, "hall-a");
        assert_eq!(
            c.mqtt.credentials,
            Some(("hall-a".into(), "change me".into()))
        );
        assert!(!c.boards[1].port.is_fixed());
        assert!(c.boards[0].port.is_fixed());
    }

    #[test]
    fn a_user_value_overrides_the_default_and_the_rest_stays() {
        let c =
            parse("[mqtt]\nprefix = \"venue\"\n[reconstructor]\nsettle_base_ms = 100\n").unwrap();
        assert_eq!(c.mqtt.prefix, "venue");
        assert_eq!(c.mqtt.port, 1883);
        assert_eq!(c.reconstructor.settle.base_ms, 100);
        assert_eq!(c.reconstructor.settle.extendable_ms, 850);
    }

    #[test]
    fn an_unknown_key_names_the_key_and_its_line() {
        let err = parse("[mqtt]\nurl = \"mqtt://h\"\nprefx = \"x\"\n").unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, ConfigError::Parse { line: 3, .. }), "{text}");
        assert!(text.contains("prefx"), "{text}");
        assert!(
            text.starts_with("/etc/boardcast/test.toml: line 3: "),
            "{text}"
        );
        assert!(!text.contains('\n'), "{text}");
    }

    #[test]
    fn an_unknown_key_in_a_board_names_its_line() {
        let err = parse("[[board]]\nid = \"1\"\nport = \"/dev/x\"\nbuad = 9600\n").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: 4, .. }), "{err}");
        assert!(err.to_string().contains("buad"));
    }

    #[test]
    fn duplicate_board_ids_and_ports_are_rejected_with_their_line() {
        let err = parse(
            "[[board]]\nid = \"1\"\nport = \"/dev/a\"\n[[board]]\nid = \"1\"\nport = \"/dev/b\"\n",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("line 5: board id `1` is given twice")
        );
        let err = parse(
            "[[board]]\nid = \"1\"\nport = \"/dev/a\"\n[[board]]\nid = \"2\"\nport = \"/dev/a\"\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("line 6: "), "{err}");
        assert!(err.to_string().contains("also board `1`"), "{err}");
    }

    #[test]
    fn shared_candidates_need_serial_numbers() {
        let two = |s1: &str, s2: &str| {
            format!(
                "[[board]]\nid = \"1\"\nport = [\"/dev/a\", \"/dev/b\"]\n{s1}\n[[board]]\nid = \"2\"\nport = [\"/dev/a\", \"/dev/b\"]\n{s2}\n"
            )
        };
        assert!(parse(&two("", "")).is_err());
        let c = parse(&two("serial = \"11111\"", "serial = \"22222\"")).unwrap();
        assert_eq!(c.boards[1].serial.as_deref(), Some("22222"));
        assert!(parse(&two("serial = \"11111\"", "serial = \"11111\"")).is_err());
    }

    #[test]
    fn protocol_names_become_an_enum_and_unknown_ones_are_rejected() {
        let c = parse("[[board]]\nid = \"a\"\nport = \"/dev/x\"\nprotocol = \"dgt\"\n").unwrap();
        assert_eq!(c.boards[0].protocol, Family::Dgt);
        assert_eq!(c.boards[0].baud, 9600);
        // Every family is read by the daemon, at its own line speed unless
        // the file gives one.
        for (name, protocol, baud) in [
            ("millennium", Family::Millennium, 38400),
            ("certabo", Family::Certabo, 38400),
            ("open", Family::Open, 115_200),
        ] {
            let c = parse(&format!(
                "[[board]]\nid = \"a\"\nport = \"/dev/x\"\nprotocol = \"{name}\"\n"
            ))
            .unwrap();
            assert_eq!((c.boards[0].protocol, c.boards[0].baud), (protocol, baud));
        }
        let c =
            parse("[[board]]\nid = \"a\"\nport = \"/dev/x\"\nprotocol = \"open\"\nbaud = 9600\n")
                .unwrap();
        assert_eq!(c.boards[0].baud, 9600);
        let err = parse("[[board]]\nid = \"a\"\nport = \"/dev/x\"\nprotocol = \"millenium\"\n")
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("line 4: board `a`: unknown protocol `millenium`")
        );
    }

    #[test]
    fn a_board_plays_chess_unless_its_game_says_otherwise_on_the_open_protocol() {
        use crate::event::GameId;
        let board = |rest: &str| format!("[[board]]\nid = \"a\"\nport = \"/dev/x\"\n{rest}");
        assert_eq!(parse(&board("")).unwrap().boards[0].game, GameId::Chess);
        for (name, game) in [
            ("chess", GameId::Chess),
            ("draughts", GameId::Draughts),
            ("xiangqi", GameId::Xiangqi),
        ] {
            let c = parse(&board(&format!("protocol = \"open\"\ngame = \"{name}\"\n"))).unwrap();
            assert_eq!(c.boards[0].game, game);
        }
        let err = parse(&board("protocol = \"open\"\ngame = \"draugths\"\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 5: board `a`: unknown game `draugths` (chess, draughts or xiangqi)"),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
        let err = parse(&board("game = \"xiangqi\"\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 4: board `a`: a xiangqi board reads on `protocol = \"open\"`"),
            "{err}"
        );
        // Draughts reads on every 8x8 family, by occupancy; a Tabutronic
        // Certabo says it senses occupancy only.
        for family in ["dgt", "millennium", "certabo"] {
            let c = parse(&board(&format!(
                "protocol = \"{family}\"\ngame = \"draughts\"\n"
            )))
            .unwrap();
            assert_eq!(c.boards[0].game, GameId::Draughts, "{family}");
            assert!(!c.boards[0].occupancy);
        }
        let c = parse(&board(
            "protocol = \"certabo\"\ngame = \"draughts\"\noccupancy = true\n",
        ))
        .unwrap();
        assert!(c.boards[0].occupancy);
        let err = parse(&board("protocol = \"millennium\"\noccupancy = true\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 5: board `a`: `occupancy` is for a Certabo board"),
            "{err}"
        );
    }

    #[test]
    fn boards_on_one_dgt_bus_share_a_port_and_differ_by_address() {
        let bus = |a: &str, b: &str| {
            format!(
                "[[board]]\nid = \"a\"\nport = \"/dev/bus\"\nprotocol = \"dgt-bus\"\n{a}\n\
                 [[board]]\nid = \"b\"\nport = \"/dev/bus\"\nprotocol = \"dgt-bus\"\n{b}\n"
            )
        };
        let c = parse(&bus("bus_address = 1025", "serial = \"00300\"")).unwrap();
        assert_eq!(c.boards[0].bus_address, Some(1025));
        assert_eq!(c.boards[1].bus_address, Some(300));
        assert_eq!((c.boards[0].number, c.boards[1].number), (1, 2));
        assert_eq!(c.boards[0].baud, 9600);
        let err = |text: &str| parse(text).unwrap_err().to_string();
        assert!(
            err(&bus("bus_address = 7", "bus_address = 7"))
                .contains("board `b`: bus address 7 on port `/dev/bus` is also board `a`'s")
        );
        assert!(
            err(&bus("bus_address = 7", ""))
                .contains("board `b`: a dgt-bus board needs `bus_address`")
        );
        assert!(err(&bus("bus_address = 7", "bus_address = 16384")).contains("out of range"));
        assert!(
            err(&bus(
                "bus_address = 7",
                "bus_address = 8\nserial = \"00009\""
            ))
            .contains("bus address 8 disagrees with serial 9")
        );
        assert!(
            err(&bus("bus_address = 7", "bus_address = 8\nbaud = 19200"))
                .contains("baud 19200 differs from board `a`'s (9600) on the same bus line")
        );
        // A single board cannot share the bus's line, nor take an address.
        let mixed = "[[board]]\nid = \"a\"\nport = \"/dev/bus\"\nprotocol = \"dgt-bus\"\nbus_address = 7\n\
                     [[board]]\nid = \"b\"\nport = \"/dev/bus\"\n";
        assert!(
            err(mixed).contains("board `b`: port `/dev/bus` is also board `a`'s"),
            "{}",
            err(mixed)
        );
        assert!(
            err("[[board]]\nid = \"a\"\nport = \"/dev/x\"\nbus_address = 7\n")
                .contains("`bus_address` is only for `protocol = \"dgt-bus\"` boards")
        );
    }

    #[test]
    fn windows_ports_and_in_process_lines_are_kept_as_written() {
        let c = parse(
            "[[board]]\nid = \"a\"\nport = \"COM5\"\n[[board]]\nid = \"b\"\nport = ['\\\\.\\COM12', \"mem:demo/b-*\"]\n",
        )
        .unwrap();
        assert_eq!(c.boards[0].port.candidates, vec!["COM5"]);
        assert_eq!(
            c.boards[1].port.candidates,
            vec![r"\\.\COM12", "mem:demo/b-*"]
        );
        assert!(!is_device_name("COMPORT") && !is_device_name("com") && !is_device_name("tty*"));
    }

    #[test]
    fn relative_paths_are_taken_from_the_config_folder() {
        let c =
            parse("[recorder]\ndir = \"rec\"\n[[board]]\nid = \"a\"\nport = \"tty*\"\n").unwrap();
        assert_eq!(c.recorder, Some(PathBuf::from("/etc/boardcast/rec")));
        assert_eq!(c.boards[0].port.candidates, vec!["/etc/boardcast/tty*"]);
    }

    #[test]
    fn broker_urls_parse_with_default_ports_and_tls() {
        assert_eq!(
            parse_url("mqtt://broker:1884").unwrap(),
            BrokerUrl {
                host: "broker".into(),
                port: 1884,
                tls: false
            }
        );
        assert_eq!(parse_url("mqtts://b").unwrap().port, 8883);
        assert!(parse_url("mqtts://b").unwrap().tls);
        assert_eq!(parse_url("mqtt://[::1]:99/").unwrap().host, "::1");
        assert!(parse_url("http://b").is_err());
        assert!(parse_url("mqtt://b:x").is_err());
        assert!(parse_url("broker:1883").is_err());
        let c = parse("[mqtt]\nurl = \"mqtts://b\"\n").unwrap();
        assert_eq!(
            c.mqtt.tls,
            Some(Tls {
                ca_file: None,
                client_auth: None
            })
        );
    }

    #[test]
    fn a_list_of_brokers_is_the_first_and_its_failovers() {
        let c =
            parse("[mqtt]\nurl = [\"mqtt://a:1884\", \"mqtt://b\", \"mqtt://[::1]:7\"]\n").unwrap();
        assert_eq!((c.mqtt.host.as_str(), c.mqtt.port), ("a", 1884));
        assert_eq!(
            c.mqtt.failover,
            [("b".to_string(), 1883), ("::1".to_string(), 7)]
        );
        assert!(
            parse("[mqtt]\nurl = \"mqtt://a\"\n")
                .unwrap()
                .mqtt
                .failover
                .is_empty()
        );
        let err = parse("[mqtt]\nurl = [\"mqtt://a\", \"mqtts://b\"]\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("must all use mqtt:// or all mqtts://"),
            "{err}"
        );
        let err = parse("[mqtt]\nurl = []\n").unwrap_err();
        assert!(
            err.to_string().contains("line 2") && err.to_string().contains("empty"),
            "{err}"
        );
        let err = parse("[mqtt]\nurl = [\"mqtt://a\", \"http://b\"]\n").unwrap_err();
        assert!(err.to_string().contains("mqtt.url"), "{err}");
    }

    #[test]
    fn broadcast_delays_are_written_as_venues_write_them() {
        assert_eq!(parse_duration("15m"), Some(900_000));
        assert_eq!(parse_duration("90s"), Some(90_000));
        assert_eq!(parse_duration("1h30m"), Some(5_400_000));
        assert_eq!(parse_duration("500ms"), Some(500));
        assert_eq!(parse_duration("0"), Some(0));
        for bad in ["", "15", "m", "15 minutes", "-5s", "1.5h"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        let board = "[[board]]\nid = \"1\"\nport = \"/dev/ttyUSB0\"\n";
        let c = parse(&format!("[broadcast]\ndelay = \"15m\"\n{board}")).unwrap();
        assert_eq!(c.broadcast.delay_ms, 900_000);
        assert_eq!(parse(board).unwrap().broadcast.delay_ms, 0);
        let err = parse(&format!("[broadcast]\ndelay = \"2h\"\n{board}")).unwrap_err();
        assert!(
            err.to_string().contains("longer than the 1 h allowed"),
            "{err}"
        );
        let err = parse(&format!("[broadcast]\ndelay = \"soon\"\n{board}")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("line 2") && text.contains("broadcast.delay"),
            "{text}"
        );
    }

    #[test]
    fn names_with_control_characters_and_rounds_out_of_range_are_refused() {
        let board = "[[board]]\nid = \"1\"\nport = \"/dev/ttyUSB0\"\n";
        let err = parse(&format!("{board}white = \"Evil\\n1. f3 e5\"\n")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("board `1` white: control character '\\n'"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
        let err = parse(&format!("[event]\nround = 4000000000\n{board}")).unwrap_err();
        assert!(err.to_string().contains("round"), "{err}");
        let err = parse(&format!("[event]\nround = 1000\n{board}")).unwrap_err();
        assert!(
            err.to_string().contains("event.round 1000 is out of range"),
            "{err}"
        );
        let long = "x".repeat(crate::text::MAX_TEXT + 1);
        let err = parse(&format!("[event]\nname = \"{long}\"\n{board}")).unwrap_err();
        assert!(
            err.to_string().contains("event.name: 201 characters"),
            "{err}"
        );
        assert!(
            parse(&format!(
                "[event]\nround = 12\n{board}white = \"Carlsen, Magnus\"\n"
            ))
            .is_ok()
        );
    }

    #[test]
    fn the_round_a_trf_file_is_read_for_is_the_one_the_file_sets() {
        let board = "[[board]]\nid = \"x\"\nport = \"/dev/ttyUSB0\"\n";
        // The default layer's round 1 asks for nothing: the file's last
        // paired round is read.
        let c = parse(&format!("[event]\npairings = \"round.trf\"\n{board}")).unwrap();
        assert_eq!((c.event.info.round, c.event.asked_round), (1, None));
        let c = parse(&format!("[event]\nround = 3\n{board}")).unwrap();
        assert_eq!((c.event.info.round, c.event.asked_round), (3, Some(3)));
    }

    #[test]
    fn the_events_xiangqi_move_limit_reaches_every_board() {
        let board = "[[board]]\nid = \"x\"\nport = \"/dev/ttyUSB0\"\nprotocol = \"open\"\ngame = \"xiangqi\"\n";
        let c = parse(&format!("[event]\nmove_limit = \"50/10\"\n{board}")).unwrap();
        assert_eq!(
            c.boards[0].options.move_limit.map(|l| l.to_string()),
            Some("50/10".into())
        );
        assert_eq!(parse(board).unwrap().boards[0].options.move_limit, None);
        let err = parse(&format!("[event]\nmove_limit = \"sixty\"\n{board}")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("event.move_limit"), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }

    #[test]
    fn a_bad_value_type_names_the_line() {
        let err = parse("[serial]\npoll_ms = \"fast\"\n").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: 2, .. }), "{err}");
    }

    #[test]
    fn the_operator_secret_comes_from_the_file_or_a_file_and_is_checked() {
        use crate::control::Secret;
        let c = parse("").unwrap();
        assert_eq!(c.control.secret, None);
        assert_eq!(c.control.window, Duration::from_secs(30));
        let c = parse("[control]\nsecret = \"0123456789abcdef\"\nwindow_s = 10\n").unwrap();
        assert_eq!(
            c.control.secret,
            Some(Secret::new("0123456789abcdef").unwrap())
        );
        assert_eq!(c.control.window, Duration::from_secs(10));
        let err = parse("[control]\nsecret = \"0123456789abcdef\"\nwindow_s = 301\n").unwrap_err();
        assert!(err.to_string().contains("at most 300 s"), "{err}");
        let err = parse("[control]\nsecret = \"short\"\n").unwrap_err();
        assert!(err.to_string().contains("at least 16"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("op.secret"), "from-a-file-0123456789\n").unwrap();
        let text = "[control]\nsecret_file = \"op.secret\"\n";
        let c = Config::parse(text, &dir.path().join("b.toml")).unwrap();
        assert_eq!(
            c.control.secret,
            Some(Secret::new("from-a-file-0123456789").unwrap())
        );
        let err = Config::parse(
            "[control]\nsecret_file = \"missing\"\n",
            &dir.path().join("b.toml"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("control.secret_file"), "{err}");
        let err =
            parse("[control]\nsecret = \"0123456789abcdef\"\nsecret_file = \"x\"\n").unwrap_err();
        assert!(err.to_string().contains("not both"), "{err}");
        // The secret never shows in the configuration's debug output.
        let c = parse("[control]\nsecret = \"0123456789abcdef\"\n").unwrap();
        assert!(!format!("{c:?}").contains("0123456789abcdef"));
    }
}
