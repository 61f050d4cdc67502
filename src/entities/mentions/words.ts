/** Word lists the mention rules consult. */

const set = (text: string) => new Set(text.split(/\s+/).filter(Boolean));

/**
 * Capitalised words that start sentences or name times rather than things: never a mention alone, and
 * dropped from the front of a capitalised run ("Please ask Dana Whitfield" names Dana Whitfield).
 */
export const COMMON_CAPITALISED = set(`
  the a an this that these those it its we i you he she they our my your their his her us them
  please thanks thank yes no also and but so or if when what why how where who whom which whose
  can could would should will shall may might must let hi hello hey dear note update today tomorrow
  yesterday now then there here after before per as for in on at by from to with without about into
  over under is are was were be been do does did has have had not all any some every each just only
  ok okay sure great good new next last first re fwd fw subject sent cc bcc regards best cheers
  monday tuesday wednesday thursday friday saturday sunday january february march april may june july
  august september october november december mon tue wed thu fri sat sun jan feb mar apr jun jul aug
  sep sept oct nov dec morning afternoon evening tonight week weekend month year quarter
  mr mrs ms dr prof sir madam
  ask tell send ping email call check forward loop move get make take give see meet schedule invite
  remind add use review confirm escalate hand write file share contact notify
`);

export const HONORIFICS = set("mr mrs ms mx dr prof sir dame");

/** All-capital words that are ordinary abbreviations, not names. */
export const COMMON_ACRONYMS = set(`
  ok asap fyi eod eow tbd tba eta usd eur gbp jpy cad aud chf am pm id faq todo nb ps re fw fwd cc bcc
  aka ie eg etc vs na ii iii iv kpi okr roi utc gmt est edt pst pdt cet cest api url uri http https json
  xml yaml csv pdf sql ai ml llm it pr mvp poc diy tldr imo imho btw
`);

/** A name ending in one of these is an organisation's. */
export const ORGANISATION_ENDINGS = set(`
  inc corp corporation ltd limited llc plc gmbh ag sa co company bank university college labs group
  holdings partners capital technologies solutions foundation institute agency ventures industries
  airlines motors associates consulting
`);

/** A name ending in one of these is a place's. */
export const PLACE_ENDINGS = set(`
  city county street st avenue ave road rd park building tower airport station bay valley square plaza
`);

/** Verbs that, right after a name, say a person is meant ("Dana Whitfield approved it"). */
export const PERSON_VERBS = set(`
  said says asked asks wrote writes approved approves signed signs thinks thought mentioned replied
  confirmed confirms agreed agrees emailed called suggested suggests prefers noted
`);

/** Fact keys whose values name people ("owner: Dana Whitfield"). */
export const PERSON_KEYS = set(`
  owner assignee approver approved_by contact manager lead author reviewer requester sponsor
  stakeholder decision_maker point_of_contact poc signatory champion assigned_to owned_by led_by
  reports_to manager_name
`);

/** Words that, after "project" in a key, are what is said of a project rather than its name. */
export const ATTRIBUTE_WORDS = set(`
  budget status deadline owner lead name id scope plan manager timeline phase priority goal risk
  cost spend date start end due launch size team stage state notes summary type code
`);
