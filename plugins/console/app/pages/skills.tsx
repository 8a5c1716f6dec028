/** Skills: the caller's skills, one skill's SKILL.md, removal. */
import { api } from '../api';
import type { PageProps } from '../main';
import { useState } from 'preact/hooks';
import { Async, Confirm, ErrorBox, Paged, href, navigate, useAction, useLoad } from '../ui';

function SkillView({ name, onRemoved }: { name: string; onRemoved: () => void }) {
  const st = useLoad(() => api.skill(name), [name]);
  return (
    <Async state={st}>
      {(s) => (
        <article class="card" aria-labelledby="skill-h">
          <h2 id="skill-h">{name}</h2>
          <p>{String(s.description ?? '')}</p>
          <div class="level-text">{String(s.content ?? s.skill_md ?? s.overview ?? '')}</div>
          <Confirm label="Remove skill" question={`Remove the skill ${name}?`} action={() => api.deleteSkill(name)} onDone={onRemoved} />
        </article>
      )}
    </Async>
  );
}

function AddSkill({ onDone }: { onDone: (name: string) => void }) {
  const [text, setText] = useState('');
  const act = useAction();
  return (
    <details class="card">
      <summary>Add a skill</summary>
      <form
        class="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await act.run(() => api.addSkill(text));
          if (r) {
            setText('');
            onDone(r.name);
          }
        }}
      >
        <label for="skill-md">SKILL.md (front matter with name and description, then the instructions)</label>
        <textarea id="skill-md" rows={8} required value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder={'---\nname: my-skill\ndescription: what it does\n---\n\n# How to ...'} />
        <button type="submit" class="primary" disabled={act.busy}>Add skill</button>
        {act.error !== undefined && <ErrorBox error={act.error} />}
      </form>
    </details>
  );
}

export function SkillsPage({ query }: PageProps) {
  const list = useLoad(() => api.skills(), []);
  const name = query.get('name');
  return (
    <>
    <AddSkill
      onDone={(n) => {
        list.reload();
        navigate('skills', { name: n });
      }}
    />
    <div class="split">
      <Async state={list} isEmpty={(d) => d.skills.length === 0} empty="No skills yet. Agents add them with POST /api/v1/skills.">
        {(d) => (
          <Paged items={d.skills} size={25}>
            {(page) => (
              <table>
                <thead>
                  <tr><th>Name</th><th>Description</th><th>Tags</th></tr>
                </thead>
                <tbody>
                  {page.map((s) => (
                    <tr key={s.uri}>
                      <td><a href={href('skills', { name: s.name })}>{s.name}</a></td>
                      <td>{s.description}</td>
                      <td>{s.tags.join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Paged>
        )}
      </Async>
      {name && (
        <SkillView
          key={name}
          name={name}
          onRemoved={() => {
            list.reload();
            navigate('skills');
          }}
        />
      )}
    </div>
    </>
  );
}
