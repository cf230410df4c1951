// The bench's peer (tests/bench.py, vs_boardgameio_memory_*): the same workload as Emissary's side, on
// boardgame.io 0.50 as it is usually served: its Server (Koa, the lobby's HTTP API and socket.io, the
// match held in memory by its default InMemory store, not durable) and its vanilla Client over socket.io.
//
//   node peer.js server CACHE          serve the game on a free loopback port; prints "listening PORT"
//   node peer.js client CACHE PORT     one client; reads commands on stdin, one JSON line answered each:
//     new       create a match (5 seats) and join seat 0: {"match": ID}
//     play N    submit N actions one after another, each waiting for the server's update that records it:
//               {"seconds": [...]} (each action's round trip, as Emissary's side times its HTTP requests)
//     quit
//
// CACHE is the folder `npm install --prefix CACHE boardgame.io@0.50` filled (tests/bench.py does it; the
// modules are never committed). The game mirrors Emissary's action: five seats of 4 actions a month, each
// action rolling 3 dice on the server (the move is `client: false`, so the client does not run it; the
// server's seeded random plugin rolls), the current month's actions kept in G, a new month after 20.
'use strict';

const path = require('node:path');
const readline = require('node:readline');
const { createRequire } = require('node:module');

const [mode, cache, port] = process.argv.slice(2);
const need = createRequire(path.join(path.resolve(cache), 'package.json'));

const SEATS = 5;
const PER_MONTH = 4 * SEATS;

const Bench = {
  name: 'bench',
  setup: () => ({ month: 1, actions: [], submitted: 0 }),
  turn: { activePlayers: { all: 'play' }, stages: { play: {} } },
  moves: {
    submitAction: {
      client: false,
      move: ({ G, random }, title) => {
        if (G.actions.length === PER_MONTH) {
          G.month += 1;
          G.actions = [];
        }
        const power = `C${G.submitted % SEATS}`;
        G.actions.push({ power, title, faces: random.D6(3) });
        G.submitted += 1;
      },
    },
  },
};

async function serve() {
  const { Server } = need('boardgame.io/server');
  const server = Server({ games: [Bench], origins: ['http://127.0.0.1'] });
  const running = await server.run({ port: 0 });
  const stop = () => {
    server.kill(running);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`listening ${running.appServer.address().port}\n`);
}

async function post(url, body) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

async function play() {
  const { Client } = need('boardgame.io/client');
  const { SocketIO } = need('boardgame.io/multiplayer');
  const base = `http://127.0.0.1:${port}`;
  let client = null;
  let waiting = null; // [submitted count awaited, resolve]

  async function newMatch() {
    if (client) client.stop();
    const { matchID } = await post(`${base}/games/bench/create`, { numPlayers: SEATS });
    const { playerCredentials } = await post(`${base}/games/bench/${matchID}/join`, {
      playerID: '0',
      playerName: 'bench',
    });
    client = Client({
      game: Bench,
      numPlayers: SEATS,
      multiplayer: SocketIO({ server: base }),
      matchID,
      playerID: '0',
      credentials: playerCredentials,
      debug: false,
    });
    const synced = new Promise((resolve) => {
      waiting = [0, resolve];
    });
    client.subscribe((state) => {
      if (state && waiting && state.G.submitted >= waiting[0]) {
        const [, resolve] = waiting;
        waiting = null;
        resolve(state);
      }
    });
    client.start();
    await synced;
    return { match: matchID };
  }

  async function submit(n) {
    const seconds = [];
    for (let i = 0; i < n; i++) {
      const expected = client.getState().G.submitted + 1;
      const done = new Promise((resolve) => {
        waiting = [expected, resolve];
      });
      const start = process.hrtime.bigint();
      client.moves.submitAction(`plot ${expected}`);
      await done;
      seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
    return { seconds };
  }

  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [command, arg] = line.trim().split(/\s+/);
    let answer;
    try {
      if (command === 'new') answer = await newMatch();
      else if (command === 'play') answer = await submit(Number(arg));
      else if (command === 'quit') break;
      else answer = { error: `unknown command ${command}` };
    } catch (err) {
      answer = { error: String(err && err.stack ? err.stack : err) };
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  }
  if (client) client.stop();
  process.exit(0);
}

(mode === 'server' ? serve() : play()).catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
