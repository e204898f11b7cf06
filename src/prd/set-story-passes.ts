import { applyEdits, findNodeAtLocation, modify, parseTree } from 'jsonc-parser';

/**
 * Rewrites `userStories[i].passes` in prd.json text as a minimal text edit, so the file's other keys,
 * key order, indentation and trailing newline are exactly as the user (or another runner) left them.
 */
export function setStoryPasses(text: string, storyId: string, passes: boolean): string {
  const tree = parseTree(text);
  const stories = tree ? findNodeAtLocation(tree, ['userStories']) : undefined;
  const index = (stories?.children ?? []).findIndex((node) => {
    const id = findNodeAtLocation(node, ['id']);
    return id?.value === storyId;
  });
  if (index < 0) throw new Error(`story ${storyId} not found in prd.json`);
  const indent = detectIndent(text);
  const edits = modify(text, ['userStories', index, 'passes'], passes, {
    formattingOptions: {
      insertSpaces: indent !== '\t',
      tabSize: indent === '\t' ? 1 : indent.length,
      eol: text.includes('\r\n') ? '\r\n' : '\n',
    },
  });
  return applyEdits(text, edits);
}

function detectIndent(text: string): string {
  const match = /\n([ \t]+)\S/.exec(text);
  return match?.[1]?.startsWith('\t') ? '\t' : (match?.[1] ?? '  ');
}
