/**
 * The control listener's request and answer schemas (control-server.ts), as every route of the sensor API
 * declares its own: the path parameter, and the answers, which Fastify serializes through them. A rule's
 * selector, action and lifetime go out as the fault plane checked them (rule-validation.ts is their one
 * definition, docs/faults.md their description); the POST body is checked by it too (checkedBy), so that a
 * 400 names every mistake of a rule at once.
 */
import { Type } from '@sinclair/typebox';

const ruleFields = {
  id: Type.String(),
  selector: Type.Unknown({ description: 'which packets, requests or unit the rule acts on' }),
  action: Type.Unknown({ description: 'what it does to them' }),
  lifetime: Type.Unknown({ description: 'when it ends: duration_ms and/or count' }),
  added: Type.String({ description: 'ISO time the rule was added' }),
  applied: Type.Number({ description: 'packets or requests the rule has affected so far' }),
  seen: Type.Number({ description: "packets or requests the rule's selector saw so far" }),
};

/** An active rule (FaultRuleView). The properties in the order the plane builds them. */
export const FaultRuleSchema = Type.Object(ruleFields);

/** An ended rule (EndedRule), kept for a while after it ended. */
export const EndedRuleSchema = Type.Object({
  ...ruleFields,
  ended: Type.String({ description: 'ISO time the rule ended' }),
  reason: Type.String({ description: 'why: removed, duration elapsed, count reached, done' }),
});

export const RuleListSchema = Type.Object({
  rules: Type.Array(FaultRuleSchema),
  ended: Type.Array(EndedRuleSchema),
});

/** A rule as a client posts it: selector, action and optional lifetime (docs/faults.md). */
export const FaultRuleInputSchema = Type.Object({
  selector: ruleFields.selector,
  action: ruleFields.action,
  lifetime: Type.Optional(ruleFields.lifetime),
});

export const RuleIdParams = Type.Object({ id: Type.String({ description: 'the id POST /faults answered with' }) });

export const RemovedSchema = Type.Object({ removed: Type.Integer({ description: 'how many rules ended' }) });
