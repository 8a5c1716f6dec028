/**
 * The `ctx` program: every command is declared here (names, arguments, options, help), and each
 * action imports its handler module only when it runs, so `ctx --help` loads commander alone and no
 * command loads the SDK's parts it does not use.
 */
import { createRequire } from 'node:module';
import type * as Commander from 'commander';
import { EXIT, report } from './exit.js';
import type { Handler } from './context.js';

// commander is CommonJS: importing it from ESM runs Node's CommonJS export scanner over it, which
// costs more start-up time than loading commander itself; require() skips the scan.
const { Command, CommanderError, Option } = createRequire(import.meta.url)('commander') as typeof Commander;
type Command = Commander.Command;

type Loader = () => Promise<Record<string, Handler>>;
const mods = {
  files: () => import('./commands/files.js'),
  search: () => import('./commands/search.js'),
  resources: () => import('./commands/resources.js'),
  sessions: () => import('./commands/sessions.js'),
  packs: () => import('./commands/packs.js'),
  tasks: () => import('./commands/tasks.js'),
  admin: () => import('./commands/admin.js'),
  system: () => import('./commands/system.js'),
  config: () => import('./commands/config.js'),
  mcp: () => import('./commands/mcp.js'),
  completion: () => import('./commands/completion.js'),
} satisfies Record<string, Loader>;

function action(mod: keyof typeof mods, name: string) {
  return async (...args: unknown[]) => {
    const cmd = args.at(-1) as Command;
    const positional = args.slice(0, -2) as Array<string | string[] | undefined>;
    const { runHandler } = await import('./context.js');
    await runHandler(cmd, positional, async () => ((await mods[mod]()) as unknown as Record<string, Handler>)[name]!);
  };
}

const ex = (...lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

export function buildProgram(version: string): Command {
  const program = new Command('ctx')
    .description('The ctx context store from a shell. URIs may omit ctx:// (resources/docs = ctx://resources/docs).')
    .version(version, '-V, --version')
    .option('--url <url>', 'server URL (env CTX_URL; default http://127.0.0.1:1933)')
    .option('--api-key <key>', 'API key (env CTX_API_KEY)')
    .option('--profile <name>', 'profile from ~/.config/ctx/config.toml (env CTX_PROFILE)')
    .option('--peer <id>', 'act as this peer (X-Ctx-Actor-Peer)')
    .option('--json', 'print JSON results (for scripts)')
    .option('--no-color', 'no colour (also NO_COLOR, or when not a TTY)')
    .showSuggestionAfterError()
    .addHelpText('after', ex('ctx ls resources', 'ctx cat resources/docs/readme.md --level 1', 'echo "likes tea" | ctx write ~/memories/tea.md', 'ctx find "how do we deploy" --limit 5', 'ctx add ./my-repo --to resources/my-repo') + '\nExit codes: 0 ok, 1 API error, 2 usage error, 3 cannot connect.\n');

  // --- files ---------------------------------------------------------------------------------------
  program.command('ls').description('list a directory').argument('[uri]', 'directory', 'ctx://resources')
    .option('-r, --recursive', 'walk subdirectories').option('-a, --all', 'show hidden entries').option('-l, --long', 'sizes and times')
    .option('--limit <n>', 'at most n entries').option('--tag <tag...>', 'only entries with these tags').option('--sort <by>', 'name or mtime').option('--desc', 'descending')
    .addHelpText('after', ex('ctx ls', 'ctx ls resources/docs -l --sort mtime --desc', 'ctx ls ~/memories --json')).action(action('files', 'ls'));
  program.command('tree').description('show a subtree').argument('[uri]', 'root', 'ctx://resources')
    .option('-d, --depth <n>', 'levels below the root').option('--limit <n>', 'at most n nodes').option('-a, --all', 'show hidden entries')
    .addHelpText('after', ex('ctx tree resources/my-repo -d 2')).action(action('files', 'tree'));
  program.command('stat').description("an entry's metadata").argument('<uri>').action(action('files', 'stat'));
  program.command('cat').description('print content: L2 (full, default), L1 overview or L0 abstract').argument('<uri>')
    .addOption(new Option('-L, --level <level>', 'tier').choices(['0', '1', '2']).default('2')).option('--offset <line>', 'first line (L2)').option('--limit <lines>', 'lines (L2)')
    .addHelpText('after', ex('ctx cat resources/docs/guide.md', 'ctx cat resources/docs --level 0')).action(action('files', 'cat'));
  program.command('write').description('write a file from stdin or a local file').argument('<uri>').argument('[file]', 'local file ("-" or none: stdin)')
    .addOption(new Option('--mode <mode>', 'how to write').choices(['replace', 'append', 'create']).default('replace')).option('--tag <tag...>', 'tags').option('--wait', 'wait until indexed')
    .addHelpText('after', ex('echo "prefers tea" | ctx write ~/memories/prefs/tea.md', 'ctx write resources/notes/plan.md ./plan.md --wait')).action(action('files', 'write'));
  program.command('rm').description('delete a file or directory').argument('<uri>').option('-r, --recursive', 'delete a directory and everything under it').action(action('files', 'rm'));
  program.command('mv').description('move or rename').argument('<from>').argument('<to>').action(action('files', 'mv'));
  program.command('mkdir').description('create a directory (and parents)').argument('<uri>').option('-d, --description <text>', 'its L0 abstract').action(action('files', 'mkdir'));
  program.command('tag').description('set, add or remove tags').argument('<uri>').argument('<tags...>', 'key=value tags')
    .option('--add', 'add to the existing tags (default: replace)').option('-r, --recursive', 'apply to everything under a directory')
    .addHelpText('after', ex('ctx tag resources/docs team=infra --add -r')).action(action('files', 'tag'));
  program.command('download').description("save a file's raw bytes").argument('<uri>').option('-o, --output <file>', 'local file (default: stdout)').action(action('files', 'download'));

  // --- retrieval -----------------------------------------------------------------------------------
  const retrieval = (c: Command) => c.argument('<query...>').option('-u, --uri <uri...>', 'search under these URIs').option('-t, --type <type...>', 'resource, memory or skill')
    .option('-n, --limit <n>', 'results per type').option('--tag <tag...>', 'only entries with these tags').option('--content', 'include the content');
  retrieval(program.command('find').description('semantic retrieval (vector + lexical)')).addHelpText('after', ex('ctx find "deployment checklist" -n 5', 'ctx find tea -t memory --json')).action(action('search', 'find'));
  retrieval(program.command('search').description('retrieval with session context')).option('-s, --session <id>', 'session for context').action(action('search', 'search'));
  program.command('grep').description('regular-expression search in content').argument('<pattern>').argument('[uri]', 'where', 'ctx://resources')
    .option('-i, --ignore-case').option('--limit <n>', 'at most n matches').addHelpText('after', ex('ctx grep "TODO|FIXME" resources/my-repo -i')).action(action('search', 'grep'));
  program.command('glob').description('match URIs by glob').argument('<pattern>').argument('[uri]', 'where', 'ctx://resources')
    .option('--limit <n>', 'at most n').addHelpText('after', ex('ctx glob "**/*.md" resources/docs')).action(action('search', 'glob'));
  const code = program.command('code').description('code navigation');
  code.command('outline').description('symbols of a file or directory').argument('<uri>').action(action('search', 'codeOutline'));
  code.command('search').description('find symbols').argument('<uri>').argument('<query>').action(action('search', 'codeSearch'));
  code.command('expand').description("a symbol's full source").argument('<uri>').argument('<symbol>').action(action('search', 'codeExpand'));

  // --- resources, watches, skills, relations, privacy ---------------------------------------------
  program.command('add').description('add a resource: a local file or directory (zipped and uploaded), a URL or a git repository')
    .argument('<source>').option('--to <uri>', 'exact target URI').option('--parent <uri>', 'parent directory (the name is derived)')
    .option('--reason <text>').option('--instruction <text>').option('--tag <tag...>', 'tags').option('--watch <minutes>', 're-import every n minutes')
    .option('--no-wait', 'return once the task is submitted')
    .addHelpText('after', ex('ctx add ./docs --to resources/docs', 'ctx add https://github.com/org/repo.git --parent resources/repos', 'ctx add https://example.com/page --no-wait --json')).action(action('resources', 'add'));
  const watch = program.command('watch').description('periodic re-imports of resources');
  watch.command('ls').description('list watches').option('--active', 'active only').action(action('resources', 'watchLs'));
  watch.command('show').argument('<task-id>').action(action('resources', 'watchShow'));
  watch.command('set').description("change a watch's interval or pause it").argument('<task-id>').option('--interval <minutes>').option('--pause').option('--resume').action(action('resources', 'watchSet'));
  watch.command('trigger').description('run a watch now').argument('<task-id>').action(action('resources', 'watchTrigger'));
  watch.command('rm').argument('<task-id>').action(action('resources', 'watchRm'));
  const skill = program.command('skill').description('skills');
  skill.command('add').description('add a skill from a SKILL.md file or a skill directory').argument('<path>').action(action('resources', 'skillAdd'));
  skill.command('ls').action(action('resources', 'skillLs'));
  skill.command('show').argument('<name>').option('--content', 'include SKILL.md').action(action('resources', 'skillShow'));
  skill.command('rm').argument('<name>').action(action('resources', 'skillRm'));
  const rel = program.command('relation').description('explicit relations between URIs');
  rel.command('ls').argument('<uri>').action(action('resources', 'relLs'));
  rel.command('link').argument('<from>').argument('<to...>').option('--reason <text>').action(action('resources', 'relLink'));
  rel.command('unlink').argument('<from>').argument('<to>').action(action('resources', 'relUnlink'));
  const privacy = program.command('privacy').description('versioned privacy configs');
  privacy.command('ls').argument('[category]').action(action('resources', 'privacyLs'));
  privacy.command('get').argument('<category>').argument('<key>').option('--version <n>').action(action('resources', 'privacyGet'));
  privacy.command('set').argument('<category>').argument('<key>').argument('<values>', 'JSON object').option('--reason <text>').action(action('resources', 'privacySet'));
  privacy.command('activate').argument('<category>').argument('<key>').argument('<version>').action(action('resources', 'privacyActivate'));
  privacy.command('versions').argument('<category>').argument('<key>').action(action('resources', 'privacyVersions'));

  // --- sessions, packs, snapshots, tasks, chat ---------------------------------------------------
  const session = program.command('session').description('conversation sessions');
  session.command('new').argument('[id]').action(action('sessions', 'newSession'));
  session.command('add').description('add a message').argument('<id>').argument('<content...>').addOption(new Option('--role <role>').choices(['user', 'assistant']).default('user')).action(action('sessions', 'add'));
  session.command('commit').description('archive and extract memories').argument('<id>').option('--no-wait', 'return the task at once').action(action('sessions', 'commit'));
  session.command('ls').action(action('sessions', 'ls'));
  session.command('show').argument('<id>').action(action('sessions', 'show'));
  session.command('rm').argument('<id>').action(action('sessions', 'rm'));
  program.command('chat').description("ask the bot; its answer streams as it is written").argument('<message...>').option('-s, --session <id>', 'continue a bot session')
    .action(action('sessions', 'chat'));
  const pack = program.command('pack').description('export and import .ctxpack archives');
  pack.command('export').argument('<uri>').option('-o, --output <file>', 'default: <name>.ctxpack').option('--vectors', 'include vectors')
    .addHelpText('after', ex('ctx pack export resources/docs -o docs.ctxpack')).action(action('packs', 'exportPack'));
  pack.command('import').argument('<file>').requiredOption('--parent <uri>', 'where to import').addOption(new Option('--on-conflict <policy>').choices(['fail', 'overwrite', 'skip']))
    .action(action('packs', 'importPack'));
  const snap = program.command('snapshot').description('git-backed snapshots');
  snap.command('create').argument('[paths...]', 'URIs to include (a USER must name some)').requiredOption('-m, --message <text>').action(action('packs', 'snapCreate'));
  snap.command('ls').option('--limit <n>').option('--branch <name>').action(action('packs', 'snapLs'));
  snap.command('show').argument('<ref>').action(action('packs', 'snapShow'));
  snap.command('diff').description('what restoring <ref> would change').argument('<ref>').option('--dir <uri>', 'only this directory (a USER must name one)').action(action('packs', 'snapDiff'));
  snap.command('restore').argument('<ref>').option('--dir <uri>', 'only this directory (a USER must name one)').option('--dry-run').option('-m, --message <text>').action(action('packs', 'snapRestore'));
  const task = program.command('task').description('background tasks');
  task.command('ls').option('--status <status>').option('--type <type>').option('--limit <n>').action(action('tasks', 'ls'));
  task.command('show').argument('<id>').option('--events', 'include execution events').action(action('tasks', 'show'));
  task.command('wait').argument('<id>').option('--timeout <seconds>').action(action('tasks', 'wait'));
  task.command('cancel').argument('<id>').action(action('tasks', 'cancel'));

  // --- admin, system, tooling ------------------------------------------------------------------------
  const admin = program.command('admin').description('accounts, users and keys (ROOT or ADMIN)');
  const account = admin.command('account').description('accounts');
  account.command('ls').action(action('admin', 'accountLs'));
  account.command('create').argument('<account-id>').requiredOption('--admin <user-id>', 'its first ADMIN').action(action('admin', 'accountCreate'));
  account.command('rm').argument('<account-id>').action(action('admin', 'accountRm'));
  const user = admin.command('user').description('users of an account');
  user.command('ls').argument('<account-id>').action(action('admin', 'userLs'));
  user.command('add').argument('<account-id>').argument('<user-id>').addOption(new Option('--role <role>').choices(['user', 'admin']).default('user')).action(action('admin', 'userAdd'));
  user.command('rm').argument('<account-id>').argument('<user-id>').action(action('admin', 'userRm'));
  user.command('role').argument('<account-id>').argument('<user-id>').argument('<role>').action(action('admin', 'userRole'));
  admin.command('key').description("issue a new key for a user (the old one stops working)").argument('<account-id>').argument('<user-id>').action(action('admin', 'keyRotate'));
  program.command('status').description('who you are and how the server is').action(action('system', 'status'));
  program.command('health').description('is the server up (no key needed)').action(action('system', 'health'));
  program.command('mcp').description("relay the server's MCP endpoint (/mcp) over stdio, for MCP clients").action(action('mcp', 'mcp'));
  const config = program.command('config').description('connection profiles in ~/.config/ctx/config.toml');
  config.command('set').argument('<key>', 'url, api_key or peer').argument('<value>').option('-p, --profile <name>', 'profile to change (default: current, else "default")')
    .addHelpText('after', ex('ctx config set url https://ctx.example.com -p prod', 'ctx config set api_key $KEY -p prod', 'ctx config use prod')).action(action('config', 'set'));
  config.command('use').argument('<profile>').action(action('config', 'use'));
  config.command('show').description('the resolved connection and the profiles').action(action('config', 'show'));
  program.command('completion').description('shell completion script').argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', ex('ctx completion bash > /etc/bash_completion.d/ctx', 'ctx completion zsh > "${fpath[1]}/_ctx"', 'ctx completion fish > ~/.config/fish/completions/ctx.fish')).action(action('completion', 'completion'));
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const { readFileSync } = await import('node:fs');
  const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;
  const program = buildProgram(version);
  const json = argv.includes('--json');
  program.exitOverride();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const c of allCommands(program)) c.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; a parse error or a group named without its subcommand is a usage error.
      process.exitCode = err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
      return;
    }
    process.exitCode = report(err, json);
  }
}

export function allCommands(c: Command): Command[] {
  return [c, ...c.commands.flatMap(allCommands)];
}
