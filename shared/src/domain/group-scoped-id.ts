/**
 * Ids that name their group: `<group_id>_<id>`, so a route given only the id finds the group's stream
 * (an approval's `<group>_<intent>`, a proposal's `<group>_<uuid>`). A group id may hold `_`
 * itself, so the value is cut at the last one.
 */
export const groupScopedId = (groupId: string, id: string): string => `${groupId}_${id}`;

export function parseGroupScopedId(value: string): { groupId: string; id: string } | undefined {
  const at = value.lastIndexOf('_');
  const groupId = value.slice(0, at);
  const id = value.slice(at + 1);
  return at > 0 && /^[\w-]+$/.test(groupId) && /^[0-9a-z-]+$/.test(id) ? { groupId, id } : undefined;
}
