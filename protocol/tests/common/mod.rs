//! A scripted game log for the transcript and verifier tests and benches:
//! three parties sign entries, the server receipts each one, and the result
//! is written as a transcript file.

#![allow(dead_code)]

use hexveil_core::scenario::Scenario;
use hexveil_core::sealed::{Content, Layer};
use hexveil_core::setup::{eligible_locations, PublicSetup, SealedSetup};
use hexveil_core::Side;
use hexveil_protocol::content;
use hexveil_protocol::encoding::{Digest, GameId, Party};
use hexveil_protocol::envelope::{Envelope, LogState, Receipt, SignedEnvelope, ENVELOPE_VERSION};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::layout::{LayoutSeed, SealedLayout};
use hexveil_protocol::message::{
    self, party_of, Body, EndRecord, Genesis, LayerReveal, Mode, RevealBody, SetupBody,
    MESSAGE_VERSION,
};
use hexveil_protocol::pad::{Pad, PadSeed};
use hexveil_protocol::transcript::{LoggedEntry, Transcript};

/// Entries per pad epoch in the test games (small, so tests are quick).
pub const PAD_LEN: u32 = 64;

/// A game being logged.
pub struct Game {
    /// The game.
    pub game: GameId,
    /// Side A, side B, the server.
    pub ids: [Identity; 3],
    /// The log's acceptance state.
    pub log: LogState,
    /// The entries so far.
    pub entries: Vec<LoggedEntry>,
    /// Each side's sealed layers and the revealed form of their contents.
    pub layers: [Vec<(SealedLayout, LayerReveal)>; 2],
    /// The pads of A, B and the server.
    pub pads: [Pad; 3],
}

fn enc(c: Content) -> [u8; 8] {
    content::encode(&c)
}

/// The example scenario (examples/scenario.toml).
pub const SCENARIO: &str = include_str!("../../../examples/scenario.toml");
/// The example public setups of A and B.
pub const PUBLIC: [&str; 2] = [
    include_str!("../../../examples/setup-a.toml"),
    include_str!("../../../examples/setup-b.toml"),
];
/// Side B's example sealed setup (A seals nothing).
pub const SEALED_B: &str = include_str!("../../../examples/sealed-b.toml");

/// The scenario, parsed.
pub fn scenario() -> Scenario {
    Scenario::from_toml(SCENARIO).unwrap()
}

/// Side `side`'s sealed setup.
pub fn sealed_setup(side: Side) -> SealedSetup {
    match side {
        Side::A => SealedSetup {
            side,
            ap: vec![],
            at: vec![],
            dummies: vec![],
            booby: vec![],
        },
        Side::B => SealedSetup::from_toml(SEALED_B).unwrap(),
    }
}

/// Seals every layer with eligible locations, one leaf per location, as an
/// honest client does (DESIGN 3.1).
pub fn layers_from(
    game: GameId,
    side: Side,
    sealed: &SealedSetup,
) -> Vec<(SealedLayout, LayerReveal)> {
    let sc = scenario();
    let public = PublicSetup::from_toml(&sc, PUBLIC[side_ix(side)]).unwrap();
    [Layer::AntiPersonnel, Layer::AntiTank, Layer::BoobyTrap]
        .into_iter()
        .filter_map(|layer| {
            let locs = eligible_locations(&sc, &public, side, layer);
            if locs.is_empty() {
                return None;
            }
            let l = LayerReveal {
                layer: layer.name().into(),
                seed: [0x30 + 4 * side.code() + layer as u8; 32],
                contents: locs
                    .iter()
                    .map(|loc| (loc.key(), enc(sealed.content(layer, *loc))))
                    .collect(),
            };
            let s = SealedLayout::seal(
                game,
                party_of(side),
                &l.layer,
                l.contents.clone(),
                LayoutSeed(l.seed),
            )
            .unwrap();
            Some((s, l))
        })
        .collect()
}

fn layers_of(game: GameId, side: Side) -> Vec<(SealedLayout, LayerReveal)> {
    layers_from(game, side, &sealed_setup(side))
}

impl Game {
    /// A new game whose genesis is entry 0.
    pub fn new(game_byte: u8) -> Game {
        let game = GameId([game_byte; 16]);
        let ids = [
            Identity::from_seed(&[1; 32]).unwrap(),
            Identity::from_seed(&[2; 32]).unwrap(),
            Identity::from_seed(&[3; 32]).unwrap(),
        ];
        let pads = [Party::A, Party::B, Party::Server]
            .map(|p| Pad::new(PadSeed([0x50 + p.as_byte(); 32]), game, p, 0, PAD_LEN).unwrap());
        let log = LogState::new(game, ids.iter().map(|i| i.public_key()).collect());
        let mut g = Game {
            game,
            log,
            entries: Vec::new(),
            layers: [layers_of(game, Side::A), layers_of(game, Side::B)],
            pads,
            ids,
        };
        let genesis = Body::Genesis(Genesis {
            message_version: MESSAGE_VERSION,
            scenario_toml: SCENARIO.into(),
            scenario_hash: Digest::sha256(SCENARIO.as_bytes()),
            players: [g.ids[0].public_key(), g.ids[1].public_key()],
            server: g.ids[2].public_key(),
            mode: Mode::Live,
            pad_len: PAD_LEN,
            answer_timeout_ms: 5_000,
            server_pad: g.pads[2].statement(),
        });
        g.push(Party::Server, &genesis);
        g
    }

    /// Signs `body` as `who` on the current head and logs it with a receipt.
    pub fn push(&mut self, who: Party, body: &Body) -> &LoggedEntry {
        let env = self.envelope(who, message::encode(body));
        self.push_signed(env)
    }

    /// The envelope `who` would sign next for these body bytes.
    pub fn envelope(&self, who: Party, body: Vec<u8>) -> SignedEnvelope {
        let id = &self.ids[who.index()];
        Envelope {
            version: ENVELOPE_VERSION,
            game_id: self.game,
            author: id.public_key(),
            seq: self.log.next_seq(),
            prev_head: self.log.head(),
            body,
        }
        .sign(id)
    }

    /// Logs a signed envelope with the server's receipt.
    pub fn push_signed(&mut self, env: SignedEnvelope) -> &LoggedEntry {
        let appended = self.log.append(&env).expect("test entries are in order");
        let receipt = Receipt::issue(&self.ids[2], self.game, &appended);
        self.entries.push(LoggedEntry {
            envelope: env,
            receipt,
        });
        self.entries.last().unwrap()
    }

    /// Logs an entry without any check: the server "receipts" whatever it
    /// is given at the next seq (to build a misbehaving server's log).
    pub fn push_unchecked(&mut self, env: SignedEnvelope) {
        let entry_hash = env.entry_hash();
        let seq = self.entries.len() as u64;
        let new_head = hexveil_protocol::envelope::next_head(&self.log.head(), &entry_hash);
        let receipt = Receipt::issue(
            &self.ids[2],
            self.game,
            &hexveil_protocol::envelope::Appended {
                seq,
                entry_hash,
                new_head,
            },
        );
        self.log = LogState::resume(
            self.game,
            self.ids.iter().map(|i| i.public_key()).collect(),
            seq + 1,
            new_head,
        );
        self.entries.push(LoggedEntry {
            envelope: env,
            receipt,
        });
    }

    /// Side `side`'s setup body.
    pub fn setup_body(&self, side: Side) -> Body {
        let i = side_ix(side);
        Body::Setup(SetupBody {
            public_setup_toml: PUBLIC[i].into(),
            roots: self.layers[i].iter().map(|(s, _)| s.statement()).collect(),
        })
    }

    /// Side `side`'s reveal body.
    pub fn reveal_body(&self, side: Side) -> Body {
        let i = side_ix(side);
        Body::Reveal(RevealBody {
            layers: self.layers[i].iter().map(|(_, l)| l.clone()).collect(),
            notes_seed: [0x60 + side.code(); 32],
            pad_seed: *self.pads[i].seed(),
        })
    }

    /// Both pad statements, then both setups.
    pub fn setups(&mut self) {
        for side in [Side::A, Side::B] {
            let st = self.pads[side_ix(side)].statement();
            self.push(party_of(side), &Body::Pad(st));
        }
        for side in [Side::A, Side::B] {
            let b = self.setup_body(side);
            self.push(party_of(side), &b);
        }
    }

    /// `n` pad entries released alternately by A and B.
    pub fn play(&mut self, n: u32) {
        for k in 0..n {
            let p = if k % 2 == 0 { Party::A } else { Party::B };
            let e = self.pads[p.index()].entry(k % PAD_LEN).unwrap();
            self.push(p, &Body::Entry(e));
        }
    }

    /// The end record and both reveals.
    pub fn finish(&mut self) {
        self.push(
            Party::Server,
            &Body::End(EndRecord {
                winner: Some(Side::B),
                reason: "side A conceded".into(),
            }),
        );
        for side in [Side::A, Side::B] {
            let b = self.reveal_body(side);
            self.push(party_of(side), &b);
        }
    }

    /// The transcript file.
    pub fn bytes(&self) -> Vec<u8> {
        Transcript {
            entries: self.entries.clone(),
        }
        .to_bytes()
        .unwrap()
    }
}

/// 0 for A, 1 for B.
pub fn side_ix(side: Side) -> usize {
    match side {
        Side::A => 0,
        Side::B => 1,
    }
}

/// A complete honest game: genesis, setups, `n` pad entries, end, reveals.
pub fn honest_game(n: u32) -> Game {
    let mut g = Game::new(0x11);
    g.setups();
    g.play(n);
    g.finish();
    g
}
