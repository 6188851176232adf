/**
 * The package's table of forms (issue 45): every row keeps the form
 * contract (`form_contract.ts`), the conversation forms driven through
 * their public start and resume functions; the literal unions `FormId`
 * and `CacheProvider` (JSR wants them written out) list the rows' ids.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type CacheProvider,
  type FormId,
  FORMS,
  TABLE,
} from "../../adapters/forms.ts";
import { FORMS as DRIVERS } from "../conversation/forms.ts";
import { formContract, type FormDriver } from "./form_contract.ts";

/** Every `FormId`, once: the compiler refuses a missing or an extra key. */
const FORM_IDS: Record<FormId, true> = {
  "anthropic-messages": true,
  "openai-chat": true,
  "openai-responses": true,
  "ai-sdk": true,
  "bedrock-converse": true,
  gemini: true,
};

/** Every `CacheProvider`, once. */
const PROVIDER_IDS: Record<CacheProvider, true> = {
  anthropic: true,
  openai: true,
  "openai-explicit": true,
  bedrock: true,
  gemini: true,
};

/** The test drivers of `tests/conversation/forms.ts`, by form id. */
const DRIVER_OF: Readonly<Record<string, string>> = {
  "anthropic-messages": "anthropic",
  "openai-chat": "openai-chat",
  "openai-responses": "openai-responses",
  "ai-sdk": "ai-sdk",
  "bedrock-converse": "bedrock-converse",
  gemini: "gemini",
};

function driverOf(id: string): FormDriver | undefined {
  const driver = DRIVERS.find((known) => known.name === DRIVER_OF[id]);
  return driver as unknown as FormDriver | undefined;
}

describe("the package's forms", () => {
  it("FormId and CacheProvider are the rows' ids", () => {
    assert.deepEqual(
      Object.keys(FORM_IDS).sort(),
      FORMS.map((form) => form.id).sort(),
    );
    assert.deepEqual(Object.keys(PROVIDER_IDS), TABLE.ruleTable.ids);
  });

  for (const form of FORMS) {
    it(`${form.id} keeps the form contract`, async () => {
      const driver = driverOf(form.id);
      const foreign = FORMS.filter((other) =>
        other !== form && driverOf(other.id) !== undefined
      ).map((other) => driverOf(other.id)!.answer([]));
      await formContract(form, TABLE, driver, foreign);
    });
  }
});
