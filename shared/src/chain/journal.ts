/**
 * How the local chain keeps its state across restarts: a snapshot of the whole state, written now and
 * then, and a journal of every change since (each transaction that ran, airdrop, clock warp, slot and
 * preloaded account), one line appended before the change is answered. At open, the snapshot is
 * loaded and its journal replayed over it. An answer costs a line (a few hundred bytes), not the
 * 1.4 MB state it used to cost after every turn.
 *
 * Snapshot and journal are matched by a generation: the snapshot file starts with a header naming its
 * own, the journal with the one it follows (`after <generation>`). A snapshot is written to a
 * temporary file and renamed over the old one, then a new journal is started the same way; a crash
 * between the two renames leaves a journal that follows an older snapshot than the one on disk, whose
 * lines the snapshot already holds: it is skipped. A line torn by a crash mid-write is the journal's
 * last, and is dropped (its change was never answered). Durable against the process dying, as the
 * state file always was; not against the machine losing power (nothing is fsynced).
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** A change to replay: bigints and bytes as text (decimal, base64). */
export type JournalEntry =
  | { tx: string }
  | { airdrop: [address: string, lamports: string] }
  | { warp: string }
  | { slot: string }
  | { preload: [address: string, owner: string, data: string] };

const MAGIC = Buffer.from('tokenops-litesvm-snapshot-1\n');

export interface Restored {
  /** The runtime's own snapshot bytes (LiteSVM.toBytes), undefined when there is no state yet. */
  state: Uint8Array | undefined;
  /** What changed after the snapshot, in order. */
  entries: JournalEntry[];
}

export class StateJournal {
  private fd: number | undefined;
  /** Lines in the current journal: a snapshot is due when they grow many. */
  lines = 0;

  private constructor(
    private readonly file: string,
    private generation: bigint,
  ) {}

  private get journalFile(): string {
    return `${this.file}.journal`;
  }

  /** Reads the snapshot and the journal that follows it; appends go to that journal from now on. */
  static open(file: string): { journal: StateJournal; restored: Restored } {
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file))
      return { journal: new StateJournal(file, -1n), restored: { state: undefined, entries: [] } };
    const bytes = readFileSync(file);
    // A state file from before the journal is the runtime's bytes alone: generation 0 (snapshots count from 1).
    const framed = bytes.subarray(0, MAGIC.length).equals(MAGIC);
    const generation = framed ? bytes.readBigUInt64BE(MAGIC.length) : 0n;
    const state = framed ? bytes.subarray(MAGIC.length + 8) : bytes;
    const journal = new StateJournal(file, generation);
    const entries = journal.readEntries();
    if (entries === undefined) journal.startJournal();
    else journal.openForAppend(entries.length);
    return { journal, restored: { state, entries: entries ?? [] } };
  }

  /** Appends one change; nothing before the first snapshot (a restart then starts afresh). */
  record(entry: JournalEntry): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    this.lines++;
  }

  /** Writes the whole state as the next generation and starts an empty journal after it. */
  snapshot(state: Uint8Array): void {
    const next = this.generation + 1n;
    const header = Buffer.alloc(MAGIC.length + 8);
    MAGIC.copy(header);
    header.writeBigUInt64BE(next, MAGIC.length);
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, header);
      writeSync(fd, state);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    this.generation = next;
    this.startJournal();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The journal's lines when it follows this snapshot; undefined when there is none that does. */
  private readEntries(): JournalEntry[] | undefined {
    if (!existsSync(this.journalFile)) return undefined;
    const text = readFileSync(this.journalFile, 'utf8');
    const [header, ...lines] = text.split('\n');
    if (header !== `after ${this.generation}`) return undefined;
    const entries: JournalEntry[] = [];
    for (const line of lines) {
      if (!line) continue;
      try {
        entries.push(JSON.parse(line) as JournalEntry);
      } catch {
        break; // torn by a crash mid-write: the last line, never answered
      }
    }
    // A torn tail is cut off, so that what is appended next starts a line of its own.
    if (!text.endsWith('\n')) this.writeJournal(entries);
    return entries;
  }

  private startJournal(): void {
    this.close();
    this.writeJournal([]);
    this.openForAppend(0);
  }

  private writeJournal(entries: JournalEntry[]): void {
    const tmp = `${this.journalFile}.tmp`;
    writeFileSync(tmp, [`after ${this.generation}`, ...entries.map((e) => JSON.stringify(e)), ''].join('\n'));
    renameSync(tmp, this.journalFile);
  }

  private openForAppend(lines: number): void {
    this.fd = openSync(this.journalFile, 'a');
    this.lines = lines;
  }
}
