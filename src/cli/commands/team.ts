/**
 * `memory team create|join|share|unshare|review|withhold|release|publish|status`: a team's
 * memories beside each person's own, through a git remote of its own (app/team/team.ts).
 */
import { Command } from 'commander';
import { runtimeOf, type Context } from '../../app/context.js';
import { createTeam, decide, joinTeam, localFor, openTeamCache, publishTeam, reviewTeam, shareProject, teamNamed, type Outbox, type PublishReport } from '../../app/team/team.js';
import { UsageError } from '../../errors.js';
import { progressBar } from '../../app/progress.js';
import { printJson, cut } from '../render.js';
import type { Runner } from '../runner.js';
import { projectLabel } from '../../project/label.js';

const hours = (v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--review-delay takes hours, 0 or more (got "${v}")`);
  return n;
};

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

const when = (iso: string | undefined) => (iso ? iso.replace('T', ' ').slice(0, 16) : 'never');

function outboxLines(team: string, delay: number, o: Outbox): string[] {
  const lines: string[] = [];
  lines.push(`team ${team}: ${o.due.length} due now, ${o.waiting.length} waiting (${delay} h window), ${o.held.length} held, ${o.withheld.length} withheld, ${o.published} published`);
  for (const x of o.due) lines.push(`  due      ${x.id.slice(0, 12)}  ${projectLabel(x.project)}  ${cut(x.question.replace(/\s+/g, ' '), 70)}`);
  for (const x of o.waiting) lines.push(`  waiting  ${x.id.slice(0, 12)}  ${projectLabel(x.project)}  goes ${when(x.due)}  ${cut(x.question.replace(/\s+/g, ' '), 60)}`);
  for (const x of o.held) lines.push(`  held     ${x.id.slice(0, 12)}  ${projectLabel(x.project)}  ${x.held}  ${cut(x.question.replace(/\s+/g, ' '), 50)}`);
  for (const x of o.withheld) lines.push(`  withheld ${x.id.slice(0, 12)}  ${projectLabel(x.project)}  ${cut(x.question.replace(/\s+/g, ' '), 60)}`);
  if (o.notAccepted.length > 0) lines.push(`  shared by you but not accepted by the team: ${o.notAccepted.join(', ')} (nothing of them goes)`);
  if (o.held.length > 0) lines.push('  held: never published unless you `memory team release <id>`; `memory team withhold <id>` keeps one back for good');
  return lines;
}

function publishLine(r: PublishReport): string {
  const what = `${r.published} published${r.forgotten ? `, ${r.forgotten} forgotten there` : ''}; ${r.waiting} waiting, ${r.held} held`;
  return `team ${r.team}: ${what}${r.push ? ` (push: ${r.push}${r.detail && r.push !== 'pushed' ? `: ${r.detail}` : ''})` : ''}${r.pull && r.pull !== 'pulled' && r.pull !== 'up-to-date' ? ` (pull: ${r.pull})` : ''}`;
}

export function registerTeam(program: Command, run: Runner): void {
  const team = program.command('team').description('team memory: a team\'s memories beside your own, through a git remote of its own (create, join, share, review, publish)');

  team
    .command('create <name>')
    .description('make a team on an empty git remote: writes team.toml, pushes, and records the team in your config.toml')
    .requiredOption('--remote <url>', 'an empty git repository the team can read and write')
    .requiredOption('--handle <me>', 'your name in the team (letters, digits, . _ -)')
    .option('--project <p>', 'a project the team accepts and you share (its URL, repository key, or name here); repeatable', collect)
    .option('--review-delay <hours>', 'how long your memories wait before they go (default 24)', hours)
    .option('--json', 'print the outcome as JSON')
    .action((name: string, f: { remote: string; handle: string; project?: string[]; reviewDelay?: number; json?: boolean }) =>
      run(async (ctx) => {
        const r = await createTeam(runtimeOf(ctx, { quiet: true }), { name, remote: f.remote, handle: f.handle, ...(f.project ? { projects: f.project } : {}), ...(f.reviewDelay !== undefined ? { reviewDelayH: f.reviewDelay } : {}) });
        if (f.json) printJson(ctx.io, { team: r.team, projects: r.manifest.projects });
        else ctx.io.stdout.write(`team ${name} created on ${f.remote}: you are ${f.handle} (maintainer); projects: ${r.manifest.projects.map((p) => `${projectLabel(p.name)} (${p.repo})`).join(', ') || 'none yet (memory team share)'}; memories wait ${r.team.review_delay_h} h before they go (memory team review)\n`);
        return 0;
      }),
    );

  team
    .command('join <name>')
    .description('join a team: adds you to its team.toml and records it in your config.toml (you share projects with `team share`)')
    .requiredOption('--remote <url>', 'the team\'s git remote')
    .requiredOption('--handle <me>', 'your name in the team')
    .option('--review-delay <hours>', 'how long your memories wait before they go (default 24)', hours)
    .option('--json', 'print the outcome as JSON')
    .action((name: string, f: { remote: string; handle: string; reviewDelay?: number; json?: boolean }) =>
      run(async (ctx) => {
        const bar = progressBar('reading the team\'s memories', process.stderr, 10_000_000);
        const r = await joinTeam(runtimeOf(ctx, { quiet: true }), { name, remote: f.remote, handle: f.handle, ...(f.reviewDelay !== undefined ? { reviewDelayH: f.reviewDelay } : {}) }, bar.update);
        bar.done();
        if (f.json) printJson(ctx.io, { team: r.team, members: r.manifest.members.map((m) => m.handle), projects: r.manifest.projects, reading: r.reading, memories: r.memories, fetched: !r.behind });
        else {
          ctx.io.stdout.write(`joined team ${name} as ${f.handle} (members: ${r.manifest.members.map((m) => m.handle).join(', ')}; projects: ${r.manifest.projects.map((p) => projectLabel(p.name)).join(', ') || 'none'}). Nothing of yours goes until you share a project: memory team share ${name} --project <p>\n`);
          if (r.behind) ctx.io.stdout.write(`reading ${r.reading.map((p) => projectLabel(p)).join(', ')}: the team's memories of it could not be fetched now (the log says why: memory status); they come with your next session start\n`);
          else ctx.io.stdout.write(r.reading.length > 0 ? `reading ${r.reading.map((p) => projectLabel(p)).join(', ')}: ${r.memories} memories of the team, here now; another project's come with your first session in it\n` : 'reading no project yet: a project\'s team memories come with your first session in it\n');
        }
        return 0;
      }),
    );

  for (const [cmd, on] of [['share', true], ['unshare', false]] as const) {
    team
      .command(`${cmd} <name>`)
      .description(on ? 'share a project\'s memories with the team (published only if the team also accepts it; a maintainer\'s share adds it)' : 'stop sharing a project with the team (what was published stays; forget removes it)')
      .requiredOption('--project <p>', 'the project: the team\'s name for it, its URL or repository key')
      .option('--json', 'print the outcome as JSON')
      .action((name: string, f: { project: string; json?: boolean }) =>
        run(async (ctx) => {
          const r = await shareProject(runtimeOf(ctx, { quiet: true }), name, f.project, on);
          if (f.json) printJson(ctx.io, { team: r.team.name, project: r.project, shared: on, accepted: r.accepted });
          else ctx.io.stdout.write(on ? `sharing ${projectLabel(r.project)} with team ${name}${r.added ? ' (added to the projects the team accepts)' : ''}; its memories wait ${r.team.review_delay_h} h before they go (memory team review)\n` : `no longer sharing ${projectLabel(r.project)} with team ${name}\n`);
          return 0;
        }),
      );
  }

  team
    .command('review [name]')
    .description('what waits in the outbox (id, project, first words, when it goes), what is held and why, what is withheld')
    .option('--json', 'print the outbox as JSON')
    .action((name: string | undefined, f: { json?: boolean }) =>
      run(async (ctx) => {
        const rt = runtimeOf(ctx, { quiet: true });
        const teams = name ? [teamNamed(rt, name)] : ctx.config.teams.length > 0 ? ctx.config.teams : [teamNamed(rt, undefined)];
        const all = [];
        for (const t of teams) all.push({ team: t, outbox: (await reviewTeam(rt, t)).outbox });
        if (f.json) printJson(ctx.io, { teams: all.map((x) => ({ team: x.team.name, review_delay_h: x.team.review_delay_h, ...x.outbox })) });
        else ctx.io.stdout.write(`${all.flatMap((x) => outboxLines(x.team.name, x.team.review_delay_h, x.outbox)).join('\n')}\n`);
        return 0;
      }),
    );

  for (const [cmd, what] of [['withhold', 'never publish this memory to the team'], ['release', 'publish a held (or waiting) memory now: your word']] as const) {
    team
      .command(`${cmd} <id>`)
      .description(what)
      .option('--team <name>', 'the team (default: the one whose outbox holds it)')
      .option('--json', 'print the outcome as JSON')
      .action((id: string, f: { team?: string; json?: boolean }) =>
        run(async (ctx) => {
          const r = await decide(runtimeOf(ctx, { quiet: true }), id, cmd, f.team);
          if (f.json) printJson(ctx.io, { team: r.team, id: r.id, decision: cmd, ...(r.published ? { published: r.published.published, push: r.published.push ?? null } : {}) });
          else ctx.io.stdout.write(cmd === 'withhold' ? `${r.id} is withheld from team ${r.team}: it never goes (on every machine of yours)\n` : `${r.id} released to team ${r.team}: ${r.published ? publishLine(r.published) : 'published at the next publish'}\n`);
          return 0;
        }),
      );
  }

  team
    .command('publish [name]')
    .description('publish what has passed its review window (the hooks do this on their own at session start and end)')
    .option('--json', 'print the outcome as JSON')
    .action((name: string | undefined, f: { json?: boolean }) =>
      run(async (ctx) => {
        const rt = runtimeOf(ctx, { quiet: true });
        const teams = name ? [teamNamed(rt, name)] : ctx.config.teams.length > 0 ? ctx.config.teams : [teamNamed(rt, undefined)];
        const out: PublishReport[] = [];
        for (const t of teams) out.push(await publishTeam(rt, t));
        if (f.json) printJson(ctx.io, { teams: out });
        else ctx.io.stdout.write(`${out.map(publishLine).join('\n')}\n`);
        // Not done: a push that failed, or a team remote that could not be read at all.
        const unread = (r: PublishReport) => r.pull !== undefined && !['pulled', 'up-to-date', 'no-branch'].includes(r.pull);
        const failed = out.some((r) => (r.push !== undefined && r.push !== 'pushed' && r.push !== 'up-to-date') || (r.push === undefined && unread(r)));
        return failed ? 1 : 0;
      }),
    );

  team
    .command('status')
    .description('your teams: members, projects, what waits, is held, was published; the last publish and pull')
    .option('--json', 'print one JSON object')
    .action((f: { json?: boolean }) => run((ctx) => teamStatus(ctx, f.json === true)));
}

async function teamStatus(ctx: Context, json: boolean): Promise<number> {
  const rt = runtimeOf(ctx, { quiet: true });
  const out = [];
  for (const t of ctx.config.teams) {
    const { outbox, manifest } = await reviewTeam(rt, t, { pull: false });
    const local = localFor(rt, t.name);
    const cache = openTeamCache(rt, t.name);
    const counts = cache?.store.liveCounts();
    cache?.store.close();
    out.push({
      team: t.name,
      remote: t.remote,
      handle: t.handle,
      members: manifest?.members.map((m) => m.handle) ?? [],
      maintainers: manifest?.maintainers ?? [],
      accepted: manifest?.projects ?? [],
      shared: t.projects,
      reading: local.reading ?? [],
      review_delay_h: t.review_delay_h,
      waiting: outbox.waiting.length + outbox.due.length,
      held: outbox.held.length,
      withheld: outbox.withheld.length,
      published: outbox.published,
      team_memories: counts?.records ?? 0,
      set_aside: cache?.setAside ?? 0,
      last_publish: local.last_publish ?? null,
      last_pull: local.last_pull ?? null,
      last_error: local.last_error ?? null,
    });
  }
  if (json) {
    printJson(ctx.io, { teams: out });
    return 0;
  }
  if (out.length === 0) {
    ctx.io.stdout.write('you are in no team: memory team create <name> --remote <url> --handle <you>, or memory team join\n');
    return 0;
  }
  const lines = out.flatMap((t) => [
    `team ${t.team} (${t.remote}), you: ${t.handle}`,
    `  members     ${t.members.join(', ') || '-'} (maintainers: ${t.maintainers.join(', ') || '-'})`,
    `  projects    accepted: ${t.accepted.map((p) => projectLabel(p.name)).join(', ') || '-'}; shared by you: ${t.shared.map((p) => projectLabel(p)).join(', ') || '-'}; read here: ${t.reading.map((p) => projectLabel(p)).join(', ') || '- (a project\'s come with your first session in it)'}`,
    `  outbox      ${t.waiting} waiting (${t.review_delay_h} h), ${t.held} held, ${t.withheld} withheld; ${t.published} of yours published`,
    `  memories    ${t.team_memories} in the team cache${t.set_aside ? `; ${t.set_aside} line(s) set aside (not where their author may write)` : ''}`,
    `  sync        last pull ${when(t.last_pull ?? undefined)}, last publish ${when(t.last_publish ?? undefined)}${t.last_error ? `; last error: ${t.last_error.op} ${t.last_error.message} (${when(t.last_error.at)})` : ''}`,
  ]);
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
