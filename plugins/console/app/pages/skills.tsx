/** Skills: the caller's skills, one skill's SKILL.md, removal. */
import { api } from '../api';
import type { PageProps } from '../main';
import { Async, Confirm, Paged, href, navigate, useLoad } from '../ui';

function SkillView({ name }: { name: string }) {
  const st = useLoad(() => api.skill(name), [name]);
  return (
    <Async state={st}>
      {(s) => (
        <article class="card" aria-labelledby="skill-h">
          <h2 id="skill-h">{name}</h2>
          <p>{String(s.description ?? '')}</p>
          <div class="level-text">{String(s.content ?? s.skill_md ?? s.overview ?? '')}</div>
          <Confirm label="Remove skill" question={`Remove the skill ${name}?`} action={() => api.deleteSkill(name)} onDone={() => navigate('skills')} />
        </article>
      )}
    </Async>
  );
}

export function SkillsPage({ query }: PageProps) {
  const list = useLoad(() => api.skills(), []);
  const name = query.get('name');
  return (
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
      {name && <SkillView key={name} name={name} />}
    </div>
  );
}
