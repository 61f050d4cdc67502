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

/**
 * Words that end or open a job title ("Sales Manager", "Senior Engineer", "Manager Mia"): a capitalised
 * run ending in one is a title, not a name of its own; one opening a run stands before a person's name.
 */
export const TITLE_WORDS = set(`
  manager managers director directors lead leads head officer counsel architect administrator admin
  coordinator engineer engineers developer specialist executive agent analyst associate representative
  rep consultant supervisor president vp svp evp ceo cfo coo cto cio ciso cmo cpo intern contractor
  technologist designer scientist assistant advisor adviser recruiter strategist owner
`);

/**
 * Words naming an area of work or a function ("Customer Success", "Legal", "Security Team"): a run
 * holding one names a team or a function, not a person, whatever title is stated beside it.
 */
export const FUNCTION_WORDS = set(`
  success support legal security finance sales marketing operations engineering product design research
  compliance procurement accounting accounts billing payroll hr it qa team department desk office
  services service platform infrastructure partnerships communications customer customers
`);

/** Weekdays and months, which end a run as its date ("QA Feb 16", "Launch March 1"), not its name. */
export const CALENDAR_WORDS = set(`
  monday tuesday wednesday thursday friday saturday sunday january february march april may june july
  august september october november december mon tue wed thu fri sat sun jan feb mar apr jun jul aug
  sep sept oct nov dec
`);

/**
 * Lower-case words that, right after a capitalised run, say it is a label in software rather than a
 * name: an error or a status ("the Too Many Requests error"), a control ("the Generate Report button"),
 * markup ("Open Graph tags").
 */
export const LABEL_WORDS = set(`
  error errors warning warnings exception exceptions message messages status code response button
  buttons tab tabs menu dialog modal popup prompt field fields option options setting settings tag tags
  header headers label labels screen key keys
`);

/**
 * Things a program manages or owns ("the package manager", "the login manager", "the session owner"):
 * before a title word they make a piece of software, not a role.
 */
export const SOFTWARE_NOUNS = set(`
  package packages login password passwords session sessions task file files window memory connection
  connections context state resource resources download downloads display device devices event events
  layout process dependency dependencies version versions cache entity secret secrets certificate
  certificates key keys plugin plugins extension extensions node boot font html page table request
  thread signal error exception query route config configuration environment build input stream queue
  job jobs database server network storage disk volume container pod lock transaction pool heap tab app
  component module asset image form migration schema cookie token
`);
