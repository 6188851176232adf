/**
 * The report's findings of what a provider dropped from a request's input
 * (SPEC 10.1, issue 46): each `input_transformations` entry a step's
 * answer reported, with the step whose answer held the dropped block and
 * the registration whose change of the prefix since then caused it. Pure.
 *
 * @module
 */

import type {
  PromptCacheReport,
  TransformationFinding,
} from "../cache/report/types.ts";
import type { ReportedUsage } from "../cache/report/usage_types.ts";
import type { RecordingStep } from "./recording.ts";

/**
 * `report` with each request's transformations found (a copy; the report
 * itself when no step reported any).
 */
export function withTransformations(
  report: PromptCacheReport,
  steps: readonly RecordingStep[],
  usages: readonly ReportedUsage[],
  read: (response: unknown) => readonly unknown[],
): PromptCacheReport {
  if (!usages.some((usage) => usage.inputTransformations !== undefined)) {
    return report;
  }
  // Where each step's answer items start and end in the history.
  const answers = steps.map((step, index) => {
    const start = step.at + step.tail.length;
    return {
      start,
      end: steps[index + 1]?.at ?? start + read(step.response).length,
    };
  });
  const producer = (
    entry: { item?: number; id?: string },
  ): number | undefined => {
    if (entry.item !== undefined) {
      const index = answers.findIndex(({ start, end }) =>
        entry.item! >= start && entry.item! < end
      );
      return index === -1 ? undefined : index;
    }
    if (entry.id === undefined) return undefined;
    const index = steps.findIndex((step) =>
      read(step.response).some((item) =>
        (item as { id?: unknown }).id === entry.id
      )
    );
    return index === -1 ? undefined : index;
  };
  const requests = report.requests.map((request, index) => {
    const entries = usages[index]?.inputTransformations;
    if (entries === undefined) return request;
    const transformations = entries.map((entry): TransformationFinding => {
      const producedBy = producer(entry);
      const contributor = producedBy === undefined
        ? undefined
        : steps.slice(producedBy + 1, index + 1).find((step) =>
          step.contributor !== undefined
        )?.contributor;
      return {
        ...entry,
        ...(producedBy === undefined ? {} : { producedBy }),
        ...(contributor === undefined ? {} : { contributor }),
      };
    });
    return { ...request, transformations };
  });
  return { ...report, requests };
}
