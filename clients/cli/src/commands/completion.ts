/** Shell completion scripts for bash, zsh and fish, generated from the command definitions. */
import type { Command, Option } from 'commander';
import type { Handler } from '../context.js';
import { UsageError } from '../exit.js';

interface Node {
  path: string;
  subs: Array<{ name: string; description: string }>;
  options: string[];
  fishOptions: Option[];
}

function collect(cmd: Command, prefix: string, acc: Node[]): Node[] {
  const opts = [...cmd.options, ...(prefix === '' ? [] : [])].flatMap((o) => [o.long, o.short].filter((x): x is string => Boolean(x)));
  acc.push({ path: prefix, subs: cmd.commands.map((c) => ({ name: c.name(), description: c.description() })), options: [...opts, '--help'], fishOptions: [...cmd.options] });
  for (const c of cmd.commands) collect(c, prefix ? `${prefix} ${c.name()}` : c.name(), acc);
  return acc;
}

const esc = (s: string) => s.replace(/'/g, "'\\''");

function bash(nodes: Node[], globals: string[]): string {
  const cases = [...nodes]
    .sort((a, b) => b.path.length - a.path.length)
    .map((n) => {
      const words = [...n.subs.map((s) => s.name), ...n.options, ...globals].join(' ');
      const pat = n.path === '' ? '""' : `"${n.path}"|"${n.path} "*`;
      return `    ${pat}) opts='${esc(words)}' ;;`;
    })
    .join('\n');
  return `# bash completion for ctx (ctx completion bash)
_ctx() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cpath="" w opts=""
  for w in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$w" in -*) ;; *) cpath="$cpath $w" ;; esac
  done
  cpath="\${cpath# }"
  case "$cpath" in
${cases}
  esac
  COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
}
complete -o default -F _ctx ctx
`;
}

function zsh(nodes: Node[], globals: string[]): string {
  const cases = [...nodes]
    .sort((a, b) => b.path.length - a.path.length)
    .map((n) => {
      const words = [...n.subs.map((s) => s.name), ...n.options, ...globals].join(' ');
      const pat = n.path === '' ? "''" : `'${n.path}'|'${n.path} '*`;
      return `    ${pat}) opts=(${words}) ;;`;
    })
    .join('\n');
  return `#compdef ctx
# zsh completion for ctx (ctx completion zsh > "\${fpath[1]}/_ctx")
_ctx() {
  local cpath="" w
  local -a opts
  for w in \${words[2,CURRENT-1]}; do
    [[ $w == -* ]] || cpath="$cpath $w"
  done
  cpath="\${cpath# }"
  case "$cpath" in
${cases}
  esac
  compadd -- $opts
  _files
}
compdef _ctx ctx
`;
}

function fish(nodes: Node[]): string {
  const lines = ['# fish completion for ctx (ctx completion fish > ~/.config/fish/completions/ctx.fish)', 'complete -c ctx -f'];
  for (const n of nodes) {
    const cond = n.path === '' ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${n.path.split(' ').at(-1)}`;
    for (const s of n.subs) lines.push(`complete -c ctx -n '${cond}' -a '${esc(s.name)}' -d '${esc(s.description)}'`);
    for (const o of n.fishOptions) {
      const long = o.long ? ` -l ${o.long.replace(/^--/, '')}` : '';
      const short = o.short ? ` -s ${o.short.replace(/^-/, '')}` : '';
      const scope = n.path === '' ? '' : ` -n '${cond}'`;
      lines.push(`complete -c ctx${scope}${long}${short}${o.required || o.optional ? ' -r' : ''} -d '${esc(o.description)}'`);
    }
  }
  return lines.join('\n') + '\n';
}

export const completion: Handler = async (_cx, [shell]) => {
  const { buildProgram } = await import('../main.js');
  const program = buildProgram('0');
  const nodes = collect(program, '', []);
  const globals = program.options.flatMap((o) => [o.long].filter((x): x is string => Boolean(x)));
  const s = shell as string;
  if (s === 'bash') process.stdout.write(bash(nodes, globals));
  else if (s === 'zsh') process.stdout.write(zsh(nodes, globals));
  else if (s === 'fish') process.stdout.write(fish(nodes));
  else throw new UsageError(`unknown shell ${s}: bash, zsh or fish`);
};
