// Include/exclude filters by category and type, applied by the mapper before the
// spool; a filtered event still advances the checkpoint (the pipeline's job) and is counted.
//
// Rules: when any include list is set, an event must match one of them (its category is in
// include_categories OR its type is in include_types); then any exclude match removes it (exclude
// wins). A category matches the category as sent or the one the catalogue assigns to the type, so
// `monitor` also catches monitor events a service version sends under `system`. Empty lists count
// as unset.
import type { FilterOptions } from '../config/mapping-section.js';

export interface EventFilter {
  accepts(type: string, category: string, catalogueCategory: string | undefined): boolean;
}

const setOf = (list: readonly string[] | undefined): ReadonlySet<string> | undefined =>
  list === undefined || list.length === 0 ? undefined : new Set(list);

/** The compiled filter, or undefined when nothing is configured (the mapper then skips the check). */
export function compileFilter(options: FilterOptions): EventFilter | undefined {
  const inCat = setOf(options.includeCategories);
  const inType = setOf(options.includeTypes);
  const exCat = setOf(options.excludeCategories);
  const exType = setOf(options.excludeTypes);
  if (inCat === undefined && inType === undefined && exCat === undefined && exType === undefined) return undefined;
  const hasCat = (set: ReadonlySet<string>, sent: string, known: string | undefined): boolean =>
    set.has(sent) || (known !== undefined && set.has(known));
  return {
    accepts(type, category, catalogueCategory) {
      if (inCat !== undefined || inType !== undefined) {
        const included =
          (inCat !== undefined && hasCat(inCat, category, catalogueCategory)) ||
          (inType !== undefined && inType.has(type));
        if (!included) return false;
      }
      if (exType !== undefined && exType.has(type)) return false;
      if (exCat !== undefined && hasCat(exCat, category, catalogueCategory)) return false;
      return true;
    },
  };
}
