export type TemplateValue = string | number | boolean | undefined;
export type Templates = ReadonlyMap<string, string>;

const MAX_PARTIAL_DEPTH = 5;

function truthy(value: TemplateValue): boolean {
  return value !== undefined && value !== false && value !== '' && value !== 0;
}

/**
 * A deliberately tiny Mustache subset: `{{name}}`, `{{#name}}…{{/name}}` (when set), `{{^name}}…{{/name}}`
 * (when not set) and `{{> partial}}`. Values are inserted in one final pass and never re-scanned, so
 * text from the agent or the user (which may contain braces) cannot inject template syntax.
 */
export function renderTemplate(name: string, templates: Templates, values: Record<string, TemplateValue>): string {
  let text = expandPartials(name, templates, 0);
  text = text.replace(
    /^[ \t]*\{\{([#^])(\w+)\}\}[ \t]*\n([\s\S]*?)^[ \t]*\{\{\/\2\}\}[ \t]*(\n|$)/gm,
    (_m, kind: string, key: string, body: string) => (truthy(values[key]) === (kind === '#') ? body : ''),
  );
  text = text.replace(/\{\{([#^])(\w+)\}\}([\s\S]*?)\{\{\/\1?\2\}\}/g, (_m, kind: string, key: string, body: string) =>
    truthy(values[key]) === (kind === '#') ? body : '',
  );
  text = text.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
    const value = values[key];
    return value === undefined || value === false ? '' : String(value);
  });
  return `${text.replace(/\n{3,}/g, '\n\n').trim()}\n`;
}

function expandPartials(name: string, templates: Templates, depth: number): string {
  const template = templates.get(name);
  if (template === undefined) throw new Error(`prompt template "${name}.md" is missing from prompts/`);
  if (depth > MAX_PARTIAL_DEPTH)
    throw new Error(`prompt template partials nest deeper than ${MAX_PARTIAL_DEPTH} at "${name}"`);
  return template.replace(/\{\{>\s*([\w-]+)\s*\}\}/g, (_m, partial: string) =>
    expandPartials(partial, templates, depth + 1).trimEnd(),
  );
}
