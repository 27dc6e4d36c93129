//! The `hexveil` command-line client (README.md, docs/PLAYING.md).

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

mod cli;
mod rules_cmd;

use cli::play::{Connect, JoinArgs};

/// The exit codes every command keeps (README.md, "Exit codes"; shown
/// at the end of `hexveil --help`).
const EXIT_CODES: &str = "Exit codes (every command): 0 success (a transcript complete and clean); \
1 failure: a fault in a transcript, a command line or setup that `check` finds wrong, \
or an operation that failed (the server refused, the connection broke, a key would be overwritten); \
2 the command could not start on what it was given: a command line it does not accept, \
a file that cannot be read or is not what it should be, a malformed key, game id or fingerprint; \
3 a transcript clean so far but incomplete (`verify`, `results`); \
141 the reader of the output went away (`hexveil replay FILE | head`).";

/// hexveil: a referee nobody has to trust.
#[derive(Parser)]
#[command(name = "hexveil", version, about, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// A side of the game.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum SideArg {
    /// Side A.
    A,
    /// Side B.
    B,
}

impl From<SideArg> for hexveil_asl::Side {
    fn from(s: SideArg) -> Self {
        match s {
            SideArg::A => hexveil_asl::Side::A,
            SideArg::B => hexveil_asl::Side::B,
        }
    }
}

/// What `join` and `resume` share.
#[derive(clap::Args)]
struct SeatOptions {
    /// Take the seat even if another client with your key holds it now
    /// (that client is told and stops); refused, displacing nobody, when
    /// your secrets are not the ones the seat committed to.
    #[arg(long)]
    take_over: bool,
    /// Read commands from this file (then from stdin).
    #[arg(long)]
    script: Option<PathBuf>,
    /// Where to write the transcript at the end (default
    /// SECRETS/transcript.hexveil).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Append to this file, one JSON object a line, every log head
    /// shown and every receipt of yours (the server's signed word that
    /// your entry is stored): evidence to hold against the transcript.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Play in your browser too: your client serves your own page on
    /// 127.0.0.1 only and prints its address with a one-time token (your
    /// keys and secrets stay in the client, which checks every command
    /// as a typed one; README "Play in your browser").
    #[arg(long)]
    ui: bool,
    /// The port of the --ui page [default: one the system picks].
    #[arg(long, requires = "ui")]
    ui_port: Option<u16>,
}

#[derive(Subcommand)]
enum Command {
    /// Make a new player key (Ed25519, PKCS#8) in FILE; never overwrites.
    Keygen {
        /// Where to write the key.
        #[arg(long)]
        out: PathBuf,
        /// Print the file and public key as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Print the public key of a key file (hex).
    Whoami {
        /// The key file.
        #[arg(long)]
        key: PathBuf,
        /// Print the public key as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Create a game between you and an opponent; prints its id.
    Create {
        #[command(flatten)]
        connect: Connect,
        /// The scenario file.
        #[arg(long)]
        scenario: PathBuf,
        /// Your side.
        #[arg(long, value_enum, ignore_case = true, default_value = "a")]
        side: SideArg,
        /// The opponent's public key (`hexveil whoami` on their key).
        #[arg(long)]
        opponent: String,
        /// Play by correspondence: each side escrows its hidden setup with
        /// the server at setup, and the server answers for it (docs/DESIGN.md, "Escrow mode";
        /// the server then sees the hidden setups, the dice stay safe).
        #[arg(long)]
        escrow: bool,
        /// Seconds a player may take to answer a request (default: the
        /// server's; days for correspondence play).
        #[arg(long)]
        answer_timeout_secs: Option<u64>,
        /// Print the created game as one JSON object (game, invite, server,
        /// fingerprint, scenario, ruleset, ruleset_version, side, side_a,
        /// side_b, mode, answer_timeout_secs).
        #[arg(long)]
        json: bool,
    },
    /// List the server's games.
    List {
        #[command(flatten)]
        connect: Connect,
        /// Print one JSON array of objects (game, side_a_seated,
        /// side_b_seated, spectators, finished); with --finished, the
        /// rows of `hexveil results` (without `file`).
        #[arg(long)]
        json: bool,
        /// List the finished games instead (at most 100, the most
        /// recently created first), with the fields of `hexveil results`,
        /// each verified by the server from its transcript.
        #[arg(long)]
        finished: bool,
    },
    /// Take your seat in a game and play it (commands: docs/PLAYING.md).
    /// `--invite URL` (with your key) is enough to find the game: your
    /// side is the seat your key holds in it and the scenario is the
    /// game's own; the first time, give your --setup and --sealed files.
    /// Joining again with the same secrets directory resumes (see also
    /// `hexveil resume DIR`).
    Join {
        #[command(flatten)]
        connect: Connect,
        /// The game id (from `create` or `list`; or give --invite).
        #[arg(long)]
        game: Option<String>,
        #[command(flatten)]
        seat: SeatOptions,
        /// Your side [default: the seat your key holds in the game].
        #[arg(long, value_enum, ignore_case = true)]
        side: Option<SideArg>,
        /// The scenario file the game was created from [default: the
        /// game's own, from its genesis; a file given must be that one].
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Your public setup file (the first join; a resume uses the one
        /// stored in the secrets directory).
        #[arg(long)]
        setup: Option<PathBuf>,
        /// Your sealed setup file (never sent; only committed to; the
        /// first join).
        #[arg(long)]
        sealed: Option<PathBuf>,
        /// A Daisy Chain standing order, HOLDER@HEX (repeatable, B28.531).
        #[arg(long)]
        daisy: Vec<String>,
        /// Directory for your secrets (written before anything is sent;
        /// reused to resume) [default: hexveil-GAME-SIDE].
        #[arg(long)]
        secrets: Option<PathBuf>,
        /// Agree to an Escrow game (created with `create --escrow`): your
        /// hidden setup goes to the server at setup (docs/DESIGN.md, "Escrow mode").
        #[arg(long)]
        escrow: bool,
        /// Your display name, shown to your opponent, spectators and in
        /// the transcript: signed by your key with your public setup (the
        /// first join). 1 to 32 characters of one line of visible text.
        #[arg(long)]
        name: Option<String>,
    },
    /// Take your seat again from a secrets directory and play on: the
    /// directory holds the game, the side, the setups and the invite and
    /// key file of the first join, so nothing else is needed.
    Resume {
        /// The secrets directory of the seat (`join --secrets`).
        dir: PathBuf,
        #[command(flatten)]
        connect: Connect,
        #[command(flatten)]
        seat: SeatOptions,
    },
    /// Watch a game as a spectator (public view only).
    Watch {
        #[command(flatten)]
        connect: Connect,
        /// The game id (or give --invite).
        #[arg(long)]
        game: Option<String>,
        /// The scenario file (by default the one the game's genesis holds).
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Where to write the transcript at the end.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Append to this file, one JSON object a line, every log head
        /// shown.
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// Check without connecting: command lines (a script file, or stdin)
    /// against a scenario, each line's action or what is wrong with it; or,
    /// with --sealed, a side's setup files against the scenario's setup
    /// rules (what `join` checks before committing to anything). Exit
    /// codes: 0 all good, 1 a line or the setup is wrong, 2 a file cannot
    /// be read or the scenario does not load.
    Check {
        /// The scenario file.
        #[arg(long)]
        scenario: PathBuf,
        /// The command file (default: stdin, unless --sealed is given).
        #[arg(long)]
        script: Option<PathBuf>,
        /// A sealed setup file to check (with --setup and --side).
        #[arg(long, requires_all = ["setup", "side"])]
        sealed: Option<PathBuf>,
        /// The public setup file that goes with --sealed.
        #[arg(long, requires = "sealed")]
        setup: Option<PathBuf>,
        /// The side of --sealed.
        #[arg(long, value_enum, ignore_case = true, requires = "sealed")]
        side: Option<SideArg>,
        /// Print the result as one JSON object (scenario, ok, setup, lines).
        #[arg(long)]
        json: bool,
    },
    /// Check a transcript file offline. Exit codes: 0 complete and clean
    /// (every audit ran), 1 a fault, 2 unreadable (not a transcript, or an
    /// entry that does not decode), 3 clean so far but incomplete (the game
    /// has not ended or not every side revealed: the end-of-game audits
    /// have not run).
    ///
    /// With `--proof PROOF`, checks a piece of evidence a client kept
    /// against a server (a fork proof, or a prompt or view the server
    /// signed: issue 24), with the game's transcript FILE when given.
    /// Exit codes then: 1 the evidence proves the server at fault, 0 it
    /// proves nothing against anyone, 3 the game's transcript is needed,
    /// 2 not evidence.
    Verify {
        /// The transcript file.
        #[arg(required_unless_present = "proof")]
        file: Option<PathBuf>,
        /// An evidence file (`proofs/*.hxproof` in a seat's secrets
        /// directory) to check instead, against the transcript FILE if one
        /// is given.
        #[arg(long, value_name = "PROOF")]
        proof: Option<PathBuf>,
        /// The server transcript key to trust (64 hex digits, as the
        /// server prints it on its `transcript-key` line). Without it the
        /// key the transcript names is checked and printed, but anyone can
        /// make a consistent transcript under a key of their own.
        #[arg(long, value_name = "KEY")]
        server_key: Option<String>,
        /// Print the verdict as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Verify a transcript, then print the whole game with everything revealed.
    Replay {
        /// The transcript file.
        file: PathBuf,
        /// Print the board (map, units, markers) instead of the story.
        #[arg(long)]
        board: bool,
        /// With --board: the board after this log entry (default: the last).
        #[arg(long, requires = "board")]
        step: Option<u64>,
        /// Draw the board after this log entry as SVG (to stdout, or to
        /// --out); the verdict goes to stderr.
        #[arg(long, value_name = "STEP", conflicts_with = "board")]
        svg: Option<u64>,
        /// With --svg: whose view to draw: public, A, B, or all (everything
        /// revealed; a complete game only).
        #[arg(long, value_name = "VIEW", default_value = "public", requires = "svg")]
        view: String,
        /// With --svg: write the SVG to this file instead of stdout.
        #[arg(long, value_name = "FILE", requires = "svg")]
        out: Option<PathBuf>,
        /// With --svg: render the picture as PNG into this file (text in
        /// the bundled DejaVu Sans font).
        #[arg(long, value_name = "FILE", requires = "svg", conflicts_with = "out")]
        png: Option<PathBuf>,
        /// With --png: pixels per SVG pixel, 0.1 to 8.
        #[arg(long, value_name = "N", default_value = "2", requires = "png")]
        scale: f32,
        /// Write the replay page to this file: one self-contained HTML file
        /// that steps through the game (board, narrative, dice, verdict;
        /// everything revealed for a complete, clean game, else the public
        /// view only).
        #[arg(long, value_name = "OUT", conflicts_with_all = ["board", "svg"])]
        html: Option<PathBuf>,
    },
    /// Print a scenario's starting board offline: the map around the units,
    /// terrain, public markers, units (with the public setups given).
    Board {
        /// The scenario file.
        #[arg(long)]
        scenario: PathBuf,
        /// Side A's public setup file.
        #[arg(long)]
        setup_a: Option<PathBuf>,
        /// Side B's public setup file.
        #[arg(long)]
        setup_b: Option<PathBuf>,
    },
    /// Start a server in-process, play a short scripted game between two
    /// bots over QUIC, verify its transcript.
    Demo {
        /// Where to write the transcript (default: a temporary file).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Play it in Escrow mode (correspondence play, docs/DESIGN.md "Escrow mode"): the
        /// server answers for the hidden setups.
        #[arg(long)]
        escrow: bool,
        /// The ruleset to play: `asl` (B28 minefields, the default) or
        /// `minis` (the miniatures minefield rules, seed 004).
        #[arg(long, default_value = "asl")]
        ruleset: String,
        /// Also serve the server's web view on this TCP address (e.g.
        /// 127.0.0.1:8080): the game's live page while it is played, and
        /// after the end its page, replay and transcript, until Ctrl-C.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Seconds each bot waits before each action, so the game can be
        /// watched live [default: 1 with --http, 0 without].
        #[arg(long, value_name = "SECS")]
        pace: Option<f64>,
    },
    /// League data: verifies each transcript as `verify` does and prints
    /// one row per game (scenario, ruleset, sides, keys, result and
    /// reason, entries, actions, verdict) as CSV or JSON. Only complete,
    /// clean transcripts are exported: if any file is refused, each is
    /// named on stderr, nothing is printed, and the exit code is that of
    /// the first refused file (1 a fault, 2 unreadable, 3 incomplete).
    #[command(group(clap::ArgGroup::new("format").required(true).args(["csv", "json"])))]
    Results {
        /// The transcript files.
        #[arg(required = true, num_args = 1..)]
        files: Vec<PathBuf>,
        /// Print CSV with a header line.
        #[arg(long)]
        csv: bool,
        /// Print one JSON array of objects.
        #[arg(long)]
        json: bool,
        /// The server transcript key to trust for every file (as `verify
        /// --server-key`).
        #[arg(long, value_name = "KEY")]
        server_key: Option<String>,
    },
    /// Print a shell completion script for SHELL on stdout, e.g.
    /// `hexveil completions bash > ~/.local/share/bash-completion/completions/hexveil`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Rules oracle: reads a situation as JSON (from QUESTION, or stdin),
    /// prints the rulings as JSON (docs/RULES-ORACLE.md).
    Rules {
        /// The question file; its directory is where the supplied tables
        /// it names by `file` are read from (stdin: the current directory).
        question: Option<PathBuf>,
    },
}

/// Exit status of a command whose reader went away (`hexveil replay FILE |
/// head`): what a shell reports for a process ended by SIGPIPE.
const BROKEN_PIPE_EXIT: i32 = 141;

/// A reader that closes the pipe early (`| head`) ends the output quietly,
/// as for any Unix tool, instead of a panic from `println!`: the workspace
/// forbids the `unsafe` that restoring SIGPIPE would need.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        default(info)
    }));
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    match Cli::parse().command {
        Command::Keygen { out, json } => match cli::keys::keygen(&out) {
            Ok(id) if json => {
                println!(
                    "{}",
                    serde_json::json!({
                        "file": out.display().to_string(),
                        "public_key": cli::keys::public_hex(&id),
                    })
                );
                ExitCode::SUCCESS
            }
            Ok(id) => {
                println!("wrote {}", out.display());
                println!("public key {}", cli::keys::public_hex(&id));
                ExitCode::SUCCESS
            }
            Err(e) => fail("keygen", e),
        },
        Command::Whoami { key, json } => match cli::keys::load(&key) {
            Ok((_, id)) if json => {
                println!(
                    "{}",
                    serde_json::json!({ "public_key": cli::keys::public_hex(&id) })
                );
                ExitCode::SUCCESS
            }
            Ok((_, id)) => {
                println!("{}", cli::keys::public_hex(&id));
                ExitCode::SUCCESS
            }
            Err(e) => fail_input("whoami", e),
        },
        Command::Create {
            connect,
            scenario,
            side,
            opponent,
            escrow,
            answer_timeout_secs,
            json,
        } => network("create", async move {
            let terms = cli::play::Terms {
                escrow,
                answer_timeout_secs,
            };
            cli::play::create(&connect, &scenario, side.into(), &opponent, terms, json).await
        }),
        Command::List {
            connect,
            json,
            finished,
        } => network("list", async move {
            if finished {
                cli::play::list_finished(&connect, json).await
            } else {
                cli::play::list(&connect, json).await
            }
        }),
        Command::Join {
            connect,
            game,
            seat,
            side,
            scenario,
            setup,
            sealed,
            daisy,
            secrets,
            escrow,
            name,
        } => {
            let j = JoinArgs {
                name,
                game,
                side: side.map(Into::into),
                scenario,
                setup,
                sealed,
                daisy,
                secrets,
                escrow,
                ..seat_args(seat)
            };
            network("join", async move { cli::play::join(&connect, &j).await })
        }
        Command::Resume { dir, connect, seat } => {
            let j = JoinArgs {
                secrets: Some(dir),
                resume: true,
                ..seat_args(seat)
            };
            network("resume", async move { cli::play::join(&connect, &j).await })
        }
        Command::Watch {
            connect,
            game,
            scenario,
            out,
            record,
        } => network("watch", async move {
            cli::play::watch(
                &connect,
                game.as_deref(),
                scenario.as_deref(),
                out,
                record.as_deref(),
            )
            .await
        }),
        Command::Check {
            scenario,
            script,
            sealed,
            setup,
            side,
            json,
        } => {
            let setups = match (sealed, setup, side) {
                (Some(sealed), Some(setup), Some(side)) => Some(cli::play::SetupFiles {
                    side: side.into(),
                    setup,
                    sealed,
                }),
                _ => None,
            };
            cli::play::check(&scenario, script.as_deref(), setups, json)
        }
        Command::Verify {
            file,
            proof,
            server_key,
            json,
        } => match (proof, file) {
            (Some(proof), file) => {
                cli::evidence::verify_proof(&proof, file.as_deref(), server_key.as_deref(), json)
            }
            (None, Some(file)) => cli::transcript::verify_file(&file, server_key.as_deref(), json),
            (None, None) => {
                eprintln!("hexveil verify: name a transcript FILE, or a proof with --proof PROOF");
                ExitCode::from(2)
            }
        },
        Command::Replay {
            file,
            board,
            step,
            svg,
            view,
            out,
            png,
            scale,
            html,
        } => {
            if let Some(page) = html {
                cli::replay_page::replay_html(&file, &page)
            } else if let Some(n) = svg {
                let to = match (&png, &out) {
                    (Some(p), _) => cli::svg::Output::Png(p, scale),
                    (None, Some(o)) => cli::svg::Output::Svg(o),
                    (None, None) => cli::svg::Output::Stdout,
                };
                cli::svg::replay_svg(&file, n, &view, to)
            } else if board {
                cli::board::replay_board(&file, step)
            } else {
                cli::transcript::replay_file(&file)
            }
        }
        Command::Board {
            scenario,
            setup_a,
            setup_b,
        } => cli::board::board_file(&scenario, [setup_a.as_deref(), setup_b.as_deref()]),
        #[cfg(feature = "demo")]
        Command::Demo {
            out,
            escrow,
            ruleset,
            http,
            pace,
        } => cli::demo::main(out, escrow, &ruleset, http, pace),
        #[cfg(not(feature = "demo"))]
        Command::Demo { .. } => {
            // The player's build holds no server to play the demo against.
            eprintln!(
                "hexveil demo: this hexveil was built without the demo's server (a player's \
client holds none). Run the demo from a checkout of hexveil with: \
cargo run --release -p hexveil --features demo -- demo"
            );
            ExitCode::from(2)
        }
        Command::Rules { question } => rules_cmd::run(question.as_deref()),
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "hexveil",
                &mut std::io::stdout(),
            );
            ExitCode::SUCCESS
        }
        Command::Results {
            files,
            csv,
            json: _,
            server_key,
        } => {
            let format = if csv {
                cli::results::Format::Csv
            } else {
                cli::results::Format::Json
            };
            cli::results::main(&files, format, server_key.as_deref())
        }
    }
}

/// The options `join` and `resume` share, as [`JoinArgs`].
fn seat_args(seat: SeatOptions) -> JoinArgs {
    JoinArgs {
        take_over: seat.take_over,
        script: seat.script,
        out: seat.out,
        record: seat.record,
        ui: seat.ui.then_some(seat.ui_port),
        ..JoinArgs::default()
    }
}

/// Runs a network subcommand on a tokio runtime.
fn network(
    what: &str,
    task: impl std::future::Future<Output = Result<(), cli::play::PlayError>>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(what, format!("cannot start the async runtime: {e}")),
    };
    let done = runtime.block_on(task);
    // A line still being read at the prompt (the game ended while the
    // player was deciding, issue 25) must not keep the process alive.
    runtime.shutdown_background();
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hexveil {what}: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// A command that could not start on what it was given: exit code 2.
fn fail_input(what: &str, e: impl std::fmt::Display) -> ExitCode {
    eprintln!("hexveil {what}: {e}");
    ExitCode::from(2)
}

fn fail(what: &str, e: impl std::fmt::Display) -> ExitCode {
    eprintln!("hexveil {what}: {e}");
    ExitCode::FAILURE
}
