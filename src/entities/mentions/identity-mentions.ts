import type { EntityMetadata, Mention } from "../../domain/entities";
import type { Identity } from "../../domain/identity";
import { ROLE_ABBREVIATIONS, roleName } from "./roles";

const EMAIL = /^[^@\s]+@([^@\s]+\.[^@\s]+)$/;

/**
 * The thread's own people: the user (by name, else id, with the id, an email and its domain as
 * metadata, and the title as a role when it is one) and the user's organisation.
 */
export function identityMentions(identity: Identity): Mention[] {
  const metadata: EntityMetadata = { user_id: identity.user_id };
  for (const text of [identity.user_id, identity.user_name]) {
    const domain = text ? EMAIL.exec(text)?.[1] : undefined;
    if (text && domain) {
      metadata.email = text.toLowerCase();
      metadata.email_domain = domain.toLowerCase();
    }
  }
  const title = identity.authority?.toLowerCase().trim();
  if (title && (ROLE_ABBREVIATIONS[title] || /\b(?:chief|head|director|officer|counsel)\b/.test(title))) {
    metadata.roles = [(roleName(title) as { name: string }).name];
  }
  const name = identity.user_name && !EMAIL.test(identity.user_name) ? identity.user_name : identity.user_id;
  const mentions: Mention[] = [
    { text: name, name, type: "person", strength: "strong", aliases: [], metadata, origin: "identity" },
  ];
  if (identity.organization) {
    const org = identity.organization;
    mentions.push({
      text: org,
      name: org,
      type: "organization",
      strength: "strong",
      aliases: [],
      metadata: metadata.email_domain ? { email_domain: metadata.email_domain } : {},
      origin: "identity",
    });
  }
  return mentions;
}
