import type { GateSpec } from '../config/config-schema.js';
import { parseJson } from '../util/parse-json.js';

export interface ImportedPrd {
  prd: { project?: string; branchName?: string; description?: string; userStories: ImportedStory[] };
  /** Quality gate commands the source named (for star.config.json `gates`). */
  gates: GateSpec[];
  /** What the conversion did that a reader should know. */
  notes: string[];
}

interface ImportedStory {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  priority: number;
  passes: boolean;
  notes: string;
  dependsOn?: string[];
}

const DONE = new Set(['done', 'complete', 'completed', 'passed', 'passes', 'closed', 'finished', 'true']);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const strings = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.map((x) => (typeof x === 'string' ? x : (str((x as Record<string, unknown>)?.title) ?? JSON.stringify(x))))
    : [];

function gateName(command: string, taken: Set<string>): string {
  const words = command.replace(/^(npm|pnpm|yarn|bun)\s+(run\s+)?/, '').split(/\s+/);
  const base = (words[0] ?? 'gate').replace(/[^\w-]/g, '') || 'gate';
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

/** Stories in any of the common JSON shapes (userStories / stories / tasks / features) as star-loop stories. */
function fromJson(raw: Record<string, unknown>, notes: string[]): ImportedStory[] {
  const key = ['userStories', 'stories', 'tasks', 'features'].find((k) => Array.isArray(raw[k]));
  if (!key) throw new Error('no "userStories", "stories", "tasks" or "features" array found');
  if (key !== 'userStories') notes.push(`"${key}" became "userStories"`);
  const items = raw[key] as Array<Record<string, unknown>>;
  return items.map((item, i) => {
    const id = str(item.id) ?? `US-${String(i + 1).padStart(3, '0')}`;
    const status = str(item.status)?.toLowerCase();
    const passes = typeof item.passes === 'boolean' ? item.passes : status ? DONE.has(status) : false;
    if (status !== undefined && typeof item.passes !== 'boolean')
      notes.push(`${id}: status "${status}" became passes: ${passes}`);
    const subtasks = strings(item.subtasks);
    if (subtasks.length > 0) notes.push(`${id}: ${subtasks.length} subtask(s) became acceptance criteria`);
    const description = str(item.description) ?? '';
    const title = str(item.title) ?? str(item.name) ?? (description.split('\n')[0] ?? '').slice(0, 80) ?? id;
    return {
      id,
      title: title || id,
      description,
      acceptanceCriteria: [...strings(item.acceptanceCriteria), ...strings(item.steps), ...subtasks],
      priority: typeof item.priority === 'number' && Number.isInteger(item.priority) ? item.priority : i + 1,
      passes,
      notes: str(item.notes) ?? str(item.completionNotes) ?? '',
      ...(Array.isArray(item.dependsOn) ? { dependsOn: strings(item.dependsOn) } : {}),
    };
  });
}

/**
 * A markdown checklist: top-level `- [ ]` items are stories (`[x]` passes), items indented under one are its criteria.
 */
function fromMarkdown(text: string, notes: string[]): { project?: string; stories: ImportedStory[] } {
  const stories: ImportedStory[] = [];
  let project: string | undefined;
  for (const line of text.split('\n')) {
    const heading = /^#\s+(.+)$/.exec(line);
    if (heading && !project) project = heading[1]?.trim();
    const item = /^(\s*)[-*+]\s+(?:\[( |x|X)\]\s+)?(.+)$/.exec(line);
    if (!item) continue;
    const [, indent = '', box, body = ''] = item;
    if (indent.length === 0 && box !== undefined) {
      const n = stories.length + 1;
      stories.push({
        id: `US-${String(n).padStart(3, '0')}`,
        title: body.trim().slice(0, 120),
        description: body.trim(),
        acceptanceCriteria: [],
        priority: n,
        passes: box.toLowerCase() === 'x',
        notes: '',
      });
    } else if (indent.length > 0 && stories.length > 0) stories.at(-1)?.acceptanceCriteria.push(body.trim());
  }
  if (stories.length === 0) throw new Error('no checklist items ("- [ ] …") found');
  notes.push(`${stories.length} checklist item(s) became stories, in order`);
  return { project, stories };
}

/** Converts another runner's PRD (JSON) or a markdown checklist plan into star-loop's prd.json. Pure. */
export function importPrd(text: string): ImportedPrd {
  const notes: string[] = [];
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch {
    raw = undefined;
  }
  if (raw === undefined) {
    const { project, stories } = fromMarkdown(text, notes);
    return { prd: { ...(project ? { project } : {}), userStories: stories }, gates: [], notes };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('expected a JSON object');
  const obj = raw as Record<string, unknown>;
  const stories = fromJson(obj, notes);
  const taken = new Set<string>();
  const gates = strings(obj.qualityGates).map((command) => ({ name: gateName(command, taken), command }));
  if (gates.length > 0) notes.push(`${gates.length} quality gate(s) became star.config.json "gates"`);
  const project = str(obj.project) ?? str(obj.name);
  return {
    prd: {
      ...(project ? { project } : {}),
      ...(str(obj.branchName) ? { branchName: str(obj.branchName) } : {}),
      ...((str(obj.description) ?? str(obj.overview))
        ? { description: str(obj.description) ?? str(obj.overview) }
        : {}),
      userStories: stories,
    },
    gates,
    notes,
  };
}
