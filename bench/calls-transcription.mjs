// node bench/calls-transcription.mjs: the transcription step of the calls pipeline over long
// recordings, as the worker runs it: the recording copied from the object storage (the local
// stand-in) into a temporary file, cut by ffmpeg into pieces under the 24 MB limit, and each piece
// sent to a loopback OpenAI-compatible transcription service. Each recording runs in its own
// process; reported: seconds, that process's peak RSS, and the peak RSS of the ffmpeg runs it
// started. Recordings: a 60-minute M4A at 64 kbit/s (a Zoom meeting's audio) and a 50 MB WAV.
// Builds dist/out when stale. Writes bench/results/<BENCH_NAME>.json (default calls-transcription).
import { execFileSync, fork } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const dist = (path) => require(join(root, 'dist/out', path));
const name = process.env.BENCH_NAME ?? 'calls-transcription';

const RECORDINGS = [
  {
    scenario: 'M4A, 60 minutes at 64 kbit/s (AAC, 44.1 kHz mono)',
    ext: 'm4a',
    contentType: 'audio/mp4',
    args: ['-f', 'lavfi', '-i', 'anoisesrc=color=pink:amplitude=0.3:seed=7:sample_rate=44100:duration=3600', '-c:a', 'aac', '-b:a', '64k', '-f', 'ipod'],
  },
  {
    scenario: 'WAV, 50 MB (PCM 16 kHz mono, 26 min 40 s)',
    ext: 'wav',
    contentType: 'audio/wav',
    args: ['-f', 'lavfi', '-i', 'anoisesrc=color=pink:amplitude=0.3:seed=7:sample_rate=16000:duration=1600', '-c:a', 'pcm_s16le', '-f', 'wav'],
  },
];

// The measured process: one recording through the reader and the transcriber.
async function child() {
  const { LocalObjectStorage, OutboundClient } = dist('libs/platform/src/index.js');
  const { StoredRecordingReader } = dist('libs/calls/src/infrastructure/recording-reader.js');
  const { OpenAiTranscriber } = dist('libs/calls/src/infrastructure/openai-transcriber.js');
  const { storeDir, key, contentType, baseUrl, workDir } = JSON.parse(process.env.BENCH_INPUT);
  const reader = new StoredRecordingReader(new LocalObjectStorage(storeDir, 'http://cdn.bench'), new OutboundClient());
  const transcriber = new OpenAiTranscriber({ baseUrl, model: 'whisper-1', workDir });
  const row = {
    id: 'bench',
    status: 'received',
    source: 'meeting',
    contact_id: null,
    recording_url: null,
    recording_key: key,
    recording_content_type: contentType,
  };
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const dir = await mkdtemp(join(workDir, 'run-'));
  let result;
  try {
    result = await transcriber.transcribe(await reader.read(row, dir), 'auto');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  process.send({ seconds, pieces: result.pieces, rssBeforeMiB: rssBefore / 2 ** 20, peakRssMiB: process.resourceUsage().maxRSS / 1024 });
}

// Peak RSS (VmHWM) of the ffmpeg processes whose parent is `pid`, sampled while they run.
function watchFfmpeg(pid) {
  let peakKiB = 0;
  const runs = new Set();
  const timer = setInterval(() => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const status = readFileSync(`/proc/${entry}/status`, 'utf8');
        if (!/^Name:\s+ffmpeg$/m.test(status) || Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== pid) continue;
        runs.add(entry);
        peakKiB = Math.max(peakKiB, Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      } catch {
        // gone meanwhile
      }
    }
  }, 20);
  return () => {
    clearInterval(timer);
    return { ffmpegRuns: runs.size, ffmpegPeakRssMiB: peakKiB / 1024 };
  };
}

async function main() {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const { LocalObjectStorage } = dist('libs/platform/src/index.js');
  const { ffmpegPath, runFfmpeg } = dist('libs/calls/src/infrastructure/ffmpeg.js');
  const { LoopbackProviders } = dist('libs/calls/src/testing/loopback-providers.js');
  const base = mkdtempSync(join(tmpdir(), 'engage-bench-calls-'));
  const storeDir = join(base, 'cdn');
  const workDir = join(base, 'work');
  mkdirSync(workDir);
  const peer = await new LoopbackProviders().start();
  const results = [];
  try {
    for (const recording of RECORDINGS) {
      const file = join(base, `recording.${recording.ext}`);
      const made = await runFfmpeg(ffmpegPath(), ['-v', 'error', '-y', ...recording.args, file], 600_000);
      if (made.code !== 0) throw new Error(`ffmpeg could not make the recording: ${made.stderr}`);
      const key = `bench/2026/11/recording.${recording.ext}`;
      const bytes = statSync(file).size;
      await new LocalObjectStorage(storeDir, 'http://cdn.bench').put(key, createReadStream(file), { contentType: recording.contentType });
      rmSync(file);
      const before = peer.transcriptions.length;
      const input = { storeDir, key, contentType: recording.contentType, baseUrl: peer.baseUrl, workDir };
      const proc = fork(fileURLToPath(import.meta.url), ['child'], { env: { ...process.env, BENCH_INPUT: JSON.stringify(input) } });
      const stopWatching = watchFfmpeg(proc.pid);
      const measured = await new Promise((resolve, reject) => {
        proc.once('message', resolve);
        proc.once('exit', (code) => code !== 0 && reject(new Error(`the measured process exited with ${code}`)));
      });
      await new Promise((resolve) => (proc.exitCode === null ? proc.once('exit', resolve) : resolve()));
      const sent = peer.transcriptions.slice(before).map((t) => t.file.bytes.length);
      const line = {
        scenario: recording.scenario,
        recording_bytes: bytes,
        pieces: measured.pieces,
        piece_bytes: sent,
        seconds: Number(measured.seconds.toFixed(2)),
        rss_before_mib: Math.round(measured.rssBeforeMiB),
        peak_rss_mib: Math.round(measured.peakRssMiB),
        ...Object.fromEntries(Object.entries(stopWatching()).map(([k, v]) => [k === 'ffmpegRuns' ? 'ffmpeg_runs' : 'ffmpeg_peak_rss_mib', Math.round(v)])),
        temporary_files_left: readdirSync(workDir).length,
      };
      peer.transcriptions.length = 0;
      console.log(JSON.stringify(line));
      results.push(line);
    }
  } finally {
    await peer.stop();
    rmSync(base, { recursive: true, force: true });
  }
  // The machine's load (1, 5, 15 minutes) when the run ended: the seconds depend on it.
  const load = loadavg().map((n) => Number(n.toFixed(2)));
  const out = { name, date: new Date().toISOString(), node: process.version, cpus: cpus().length, load_average: load, transcription: results };
  writeFileSync(join(root, 'bench', 'results', `${name}.json`), `${JSON.stringify(out, null, 2)}\n`);
}

if (process.argv[2] === 'child') await child();
else await main();
