/**
 * The conversational half of the held-out set: four users, each with six dated chat sessions with
 * an assistant, written for this benchmark. Every exchange (one user message and the assistant's
 * reply) becomes one file under the user's memories; each session also gets two unrelated
 * everyday exchanges from a shared pool, as real chat histories do. Questions (single-fact,
 * temporal, multi-hop, paraphrase) name the exchanges that hold their answer and were written to
 * avoid copying the exchange's wording.
 *
 * Written before any scoring change and never tuned on: report on it, do not fit to it.
 *
 *   npx tsx bench/retrieval-heldout/gen-conversations.ts   # → sets/conversations.jsonl, sets/conv-questions.jsonl
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Ex = [user: string, assistant: string];
interface Session {
  id: string;
  /** Local start time of the chat. */
  at: string;
  ex: Ex[];
}
type Kind = 'single-fact' | 'temporal' | 'multi-hop' | 'paraphrase';
/** [kind, relevant exchanges as "s<session>.<exchange>" (1-based), question] */
type Q = [Kind, string, string];
interface User {
  id: string;
  sessions: Session[];
  questions: Q[];
}

const users: User[] = [
  {
    id: 'maya',
    sessions: [
      {
        id: 's1',
        at: '2026-01-08T09:05',
        ex: [
          ["I finally signed the lease for the flat in Alfama! Third floor, no elevator, but the view over the Tagus is worth it. Rent is 1,450 euros a month.", "Congratulations on the new place! Set up electricity (EDP or another supplier) and water (EPAL) early, since both ask for the lease and a tax number. A river view for that price in Alfama is a good deal."],
          ["My dog Biscuit, a four-year-old beagle mix, already hates the stairs. Any tips?", "Beagles are sturdy but three flights several times a day add up. Keep his nails short for grip, carry him down when he's tired, and build up with short trips. A non-slip runner on the lower steps helps too."],
          ["Apparently I need a NIF before the internet company will install anything.", "Right, the NIF is the Portuguese taxpayer number and almost every contract asks for it. You can get it at a Finanças office or a Loja do Cidadão with your passport and proof of address."],
          ["Booked the Finanças appointment: January 20 at 10:30 at the Loja do Cidadão in Saldanha.", "Good. Bring your passport, the lease as proof of address, and a printed copy of the booking. Arrive ten minutes early; the ticket machine assigns the queue."],
          ["Work news: I start at Ondaline, the fintech, on February 2 as a senior product designer.", "That's great news! A senior role at a fintech will mean a lot of flows with regulatory constraints. Want help preparing a 30-60-90 day plan?"],
          ["My sister Inês wants to visit in April, around Easter. Keep that in mind.", "Noted: Inês is planning an April visit around Easter. Once she has dates I can help plan things to do in Lisbon."],
        ],
      },
      {
        id: 's2',
        at: '2026-01-21T19:40',
        ex: [
          ["The Finanças thing went fine yesterday, they gave me the number on the spot.", "Excellent, that unblocks the internet contract and the utilities. Keep the printed NIF document with your lease."],
          ["I want to learn European Portuguese, not the Brazilian variety. Found a tutor, Joana, Tuesdays and Thursdays at 7pm, 25 euros an hour.", "Twice a week is a solid rhythm. European Portuguese swallows many unstressed vowels, so lots of listening practice (RTP podcasts, local radio) will help between lessons with Joana."],
          ["I keep mixing up ser and estar. Can you explain again?", "Ser is for lasting identity: origin, profession, what something is. Estar is for states and locations: how you are right now, where something is. 'Sou designer' but 'estou cansada'."],
          ["Joana's homework: describe my neighbourhood in 150 words.", "Try structuring it: where Alfama is, what you see from your window, the sounds of the street, and one thing you love. I can correct a draft once you write it."],
          ["Biscuit's vet here is Dr. Rui Matos at the Clínica Veterinária do Castelo. His rabies booster is due in March.", "Noted: Dr. Rui Matos, Clínica Veterinária do Castelo, rabies booster in March. Portugal requires it to be current for the dog's registration."],
          ["What's the word for the painted tiles on the building fronts here?", "Those are azulejos: glazed ceramic tiles, often blue and white, used on facades, churches and stations all over Portugal."],
        ],
      },
      {
        id: 's3',
        at: '2026-02-15T11:20',
        ex: [
          ["Two weeks in at Ondaline. My manager is Carla Nunes and she wants the onboarding flow redesigned by the end of Q1.", "End of March is tight but doable if you scope it well. Start with the funnel data to find the biggest leak, then prototype only that part."],
          ["The funnel shows 38% of new users abandon at the identity verification step.", "That's the classic KYC cliff. Common fixes: explain why you need the document, show a progress indicator, allow retrying the photo, and let people save and come back later."],
          ["We design in Figma and test with Maze. I'm running eight usability sessions next week.", "Eight sessions will surface most major issues. Write tasks around verification specifically and record where people hesitate."],
          ["Carla suggested I go to the Config conference in San Francisco in May, and the company would pay.", "That's a generous offer. Config is Figma's conference and the design-systems talks are usually strong. Check the dates and ask about travel budget early."],
          ["I'm running again and want to do the Lisbon Half Marathon on March 22.", "Five weeks is short but fine if you have a base. Do one long run a week building to 18 km, two easy runs, and taper in the final ten days."],
          ["My left knee aches after long runs on the cobblestones.", "Cobbles are hard on knees. Do the long run on the riverside path instead, strengthen your glutes and quads, and see a physio if the pain stays more than a couple of days."],
        ],
      },
      {
        id: 's4',
        at: '2026-03-10T18:15',
        ex: [
          ["Biscuit got his rabies booster at Dr. Matos today, all fine. He weighs 14.2 kg.", "Good to have that done. 14.2 kg is reasonable for a beagle mix; the vet would have said if he needed to slim down."],
          ["Sunday's long run was 18 km in 1h52. Race day is in twelve days.", "That's right on track. Now taper: cut weekly volume by about a third, keep a couple of short race-pace efforts, and sleep well."],
          ["What should I eat the night before the race?", "A familiar carbohydrate-rich dinner: pasta, rice or potatoes with a little protein, not too much fibre or fat, and nothing new. Drink water through the evening."],
          ["Inês confirmed her flights: she lands April 2 at 14:40 and stays until April 9.", "Lovely! That's a full week. I'll remember she arrives on the 2nd in the afternoon."],
          ["Plan a day trip for Inês and me. She loves old palaces.", "Sintra is perfect: Pena Palace in the morning before the crowds, Quinta da Regaleira after lunch, and the Moorish Castle if you still have energy. Take the train from Rossio."],
          ["Usability results: six of the eight participants got stuck uploading the photo of their ID.", "That's a clear signal. Add live framing guidance, accept gallery uploads, and give specific error messages for blur or glare."],
        ],
      },
      {
        id: 's5',
        at: '2026-04-12T10:00',
        ex: [
          ["I finished the half in 1:58:40! The knee held up the whole way.", "Under two hours on your first Lisbon half, congratulations! Take a few easy days and keep the strength work that protected your knee."],
          ["Inês's visit was lovely. We did Sintra and ate at Taberna da Rua das Flores.", "So glad it went well. Taberna da Rua das Flores is a great pick, hard to get into!"],
          ["Ondaline approved Config. I fly May 18; the conference is May 20 to 22 at Moscone.", "Great. Arriving two days early will help with jet lag. Want me to draft a list of talks to prioritize?"],
          ["Who will look after Biscuit while I'm in SF? My neighbour Dona Fátima offered.", "If Dona Fátima already knows him, that's ideal. Leave her the vet's contact, his food schedule and a spare key."],
          ["The new onboarding shipped. Drop-off at verification fell from 38% to 21%.", "That's a big improvement, nearly halving the loss. Worth writing up as a case study for Carla and the team."],
          ["Joana says my Portuguese is B1 now. She thinks I could sit the DIPLE, the B2 exam, in November.", "From scratch in January to B1 in April is fast. The DIPLE is realistic by November if you keep two lessons a week and add writing practice."],
        ],
      },
      {
        id: 's6',
        at: '2026-06-03T21:30',
        ex: [
          ["Big news: Tiago proposed at the Miradouro da Senhora do Monte!", "Congratulations to you both! That viewpoint at sunset is about as romantic as Lisbon gets."],
          ["We're thinking of a small wedding in the Alentejo in September 2027, about 60 guests.", "Early autumn in the Alentejo is beautiful and the heat has usually passed. With 60 guests, a wine estate with its own kitchen keeps things simple."],
          ["Our budget is around 18,000 euros in total.", "For 60 guests that is about 300 euros a head, workable in the Alentejo if the venue includes catering. Keep 10% aside for surprises."],
          ["Config recap: the best talk was about accessible colour systems. I want to audit our app's contrast.", "Good plan. Check every text/background pair against WCAG AA (4.5:1 for body text), and build the fixes into the design tokens so they stick."],
          ["Tiago is allergic to shellfish, so no seafood menu.", "Noted. Tell the caterer early so they avoid cross-contamination, and lean on Alentejo classics like black pork and lamb."],
          ["Venue shortlist: Herdade do Esporão and Monte da Bica.", "Both are lovely. Ask each about exclusivity, accommodation for guests, and what happens if it rains."],
        ],
      },
    ],
    questions: [
      ['single-fact', 's1.1', 'how much is the monthly rent for my place'],
      ['single-fact', 's1.2', 'what breed is my dog'],
      ['single-fact', 's1.4', 'where was my tax number appointment held'],
      ['single-fact', 's1.5', 'what position was I hired for at the fintech'],
      ['single-fact', 's2.2', 'how much does my language teacher charge per lesson'],
      ['single-fact', 's2.5', "which clinic treats Biscuit"],
      ['single-fact', 's3.2', 'what share of new users quit at the ID check before the redesign'],
      ['single-fact', 's3.3', 'which tools do we use for prototypes and user testing'],
      ['single-fact', 's4.1', 'how heavy was the dog at his last vet visit'],
      ['single-fact', 's5.1', 'what was my finish time in the half marathon'],
      ['single-fact', 's5.2', 'which restaurant did my sister and I go to'],
      ['single-fact', 's5.4', 'who offered to dog-sit while I travel'],
      ['single-fact', 's6.2', 'how many guests are we inviting to the wedding'],
      ['single-fact', 's6.3', 'how much money have we set aside for the wedding'],
      ['temporal', 's1.5', 'on what date did I begin the new job'],
      ['temporal', 's4.4', 'what day and time did my sister arrive in April'],
      ['temporal', 's2.5,s4.1', 'when was the rabies vaccine due and when did he actually get it'],
      ['temporal', 's3.1', 'in February, what deadline did my boss give me for the redesign'],
      ['temporal', 's5.3', 'what are the dates of the San Francisco trip'],
      ['temporal', 's4.2', 'how many days before the race was my longest training run'],
      ['temporal', 's2.1', 'what did I report the day after the Finanças appointment'],
      ['temporal', 's6.2', 'in which month and year is the wedding planned'],
      ['multi-hop', 's3.1,s3.4', 'which conference did the person who set my onboarding deadline recommend'],
      ['multi-hop', 's4.6,s5.5', 'did the problems found in the usability tests get fixed and what was the effect'],
      ['multi-hop', 's3.6,s5.1', 'how did my sore knee cope with the race'],
      ['multi-hop', 's4.5,s5.2', 'what outing did I plan for my sister and did we actually go'],
      ['multi-hop', 's5.4,s5.3', 'who keeps Biscuit during the conference and when do I leave'],
      ['multi-hop', 's6.5,s6.1', 'what must the wedding food avoid because of my fiancé, and where did he propose'],
      ['multi-hop', 's2.2,s5.6', 'how has my Portuguese progressed since I started lessons with Joana'],
      ['multi-hop', 's1.4,s2.1', 'when was the tax office appointment and did I leave with the number'],
      ['paraphrase', 's1.1', 'apartment with a view of the water but lots of steps to climb'],
      ['paraphrase', 's1.2', 'my pup struggles getting up to our home'],
      ['paraphrase', 's2.3', 'the two verbs that both mean to be confuse me'],
      ['paraphrase', 's2.4', 'assignment to write a short text about the area I live in'],
      ['paraphrase', 's4.3', 'what dinner before a long road race'],
      ['paraphrase', 's6.4', 'what I took away from the design event about legibility of colours'],
      ['paraphrase', 's6.6', 'places in the countryside we are considering for the ceremony'],
      ['paraphrase', 's2.6', 'name of the glazed ceramic decoration on houses'],
    ],
  },
  {
    id: 'tomas',
    sessions: [
      {
        id: 's1',
        at: '2026-01-05T08:45',
        ex: [
          ["New year, new project: we're moving our services off the old Nomad cluster onto Kubernetes (EKS) by the end of March.", "A three-month migration is ambitious. Inventory the services by risk, move the stateless ones first, and keep Nomad running until the last cutover has been stable for a while."],
          ["Our biggest service is ledger-api, written in Go, around 2,300 requests per second at peak.", "At that load you'll want a PodDisruptionBudget, sensible resource requests, and a load test on EKS before the cutover."],
          ["My teammate Lena owns the Terraform, I own the Helm charts.", "A clean split. Agree on how values flow from Terraform outputs into the charts so you don't duplicate config."],
          ["Should we use Argo CD or Flux for GitOps?", "Both are solid. Argo CD has a strong UI and app-of-apps pattern; Flux is lighter and more composable. If your on-call people like visual status, Argo CD tends to win."],
          ["We went with Argo CD, mostly because the UI helps the on-call folks.", "Sensible. Set up SSO and read-only roles for on-call so they can look without being able to sync by accident."],
          ["Personal: my daughter Mila starts at the Grundschule am Weinberg in August. Registration closes February 14.", "Noted: Mila, Grundschule am Weinberg, registration deadline February 14. I can remind you closer to the date."],
        ],
      },
      {
        id: 's2',
        at: '2026-01-19T21:10',
        ex: [
          ["I started a sourdough starter and named it Karl. Feeding it 1:1:1 with rye flour.", "Rye makes a lively starter. Keep it somewhere warm, around 24°C, and it should be reliably doubling within a week."],
          ["First loaf was flat and dense. 75% hydration, four hour bulk at 21°C.", "At 21°C four hours is probably too short; the dough was underproofed. Let the bulk go until it has grown by about 50% and looks airy, even if that takes six hours."],
          ["I bought a Dutch oven, a 26 cm Staub.", "Perfect size for loaves up to about 1 kg. Preheat it for 45 minutes and bake lid-on for the first 20."],
          ["Submitted Mila's school registration today, two weeks before the deadline.", "Well done, one less thing to worry about."],
          ["ledger-api uses 3 GB of memory under load in staging on EKS. On Nomad it was 1.2 GB.", "Look at the Go runtime first: GOMAXPROCS and GOGC behave differently under container limits. Set GOMEMLIMIT and compare heap profiles from both environments."],
          ["Chess: I'm 1540 in Lichess rapid and want 1700 by summer.", "160 points in six months is realistic. Do daily tactics, review every loss, and play longer time controls so you can think."],
        ],
      },
      {
        id: 's3',
        at: '2026-02-09T13:00',
        ex: [
          ["We had an outage on Friday: ledger-api on EKS ran out of database connections. 47 minutes of errors.", "Sorry, that's a rough one. Once things are calm, collect the timeline, the connection metrics and the autoscaler events for the postmortem."],
          ["Root cause: each pod opens 50 connections, the HPA scaled to 40 pods, and Postgres max_connections is 500.", "40 × 50 = 2,000 connections wanted against 500 allowed, so the autoscaler made it worse. Cap the pool per pod and cap the replicas, or put a pooler in front."],
          ["We'll put PgBouncer in transaction mode in front of Postgres.", "Good choice. Watch out for session features (prepared statements, advisory locks, SET) that break in transaction mode."],
          ["Postmortem meeting is Thursday at 11 and I'm writing the doc.", "Keep it blameless: timeline, impact, root cause, what went well, and action items with owners."],
          ["Found the memory problem: GOMAXPROCS. The Go runtime saw all 64 host cores. automaxprocs fixed it; now 1.3 GB.", "Classic container pitfall. With GOMAXPROCS matching the CPU limit the GC runs fewer parallel workers and the heap stays smaller."],
          ["Loaf number five finally had an open crumb! Longer bulk, six hours.", "That's the fermentation fix paying off. Karl is earning his name."],
        ],
      },
      {
        id: 's4',
        at: '2026-03-02T07:50',
        ex: [
          ["Bought a used cargo bike, an Urban Arrow, for 2,900 euros, to take Mila to Kita.", "A good price for a used Urban Arrow. Get the motor and brakes checked at a shop that services them."],
          ["My commute is 11 km along the Landwehrkanal and takes 35 minutes.", "That's a pleasant route and about 20 km/h average, which is typical for an e-cargo bike in city traffic."],
          ["What tyre pressure should I run on the cargo bike?", "Check the sidewall range; with a child and cargo, stay near the upper half, often around 3 to 3.5 bar front and a bit more on the rear."],
          ["I'm giving a talk at GopherCon EU in Berlin in June about our connection pooling lessons.", "Great topic; the outage story makes a strong opening. Show the numbers: 40 pods × 50 connections against 500."],
          ["Migration status: 14 of 19 services are on EKS. ledger-api goes last, planned for March 28.", "Good progress. Do a rehearsal of the ledger-api cutover in staging with production-like traffic."],
          ["Chess rating update: 1610.", "70 points in six weeks, nice. Keep going."],
        ],
      },
      {
        id: 's5',
        at: '2026-04-01T17:30',
        ex: [
          ["ledger-api cut over on the night of March 28. Zero downtime, we never needed the rollback plan.", "Congratulations, that's the best outcome. Keep the old path available for a couple of weeks just in case."],
          ["Nomad decommissioning is scheduled for April 30. It saves about 4,200 euros a month.", "Nice savings. Archive the job specs and logs before tearing it down."],
          ["Family vacation booked: two weeks in Sardinia, July 12 to 26, ferry from Livorno.", "Sardinia in July will be hot but gorgeous. Book the ferry cabin early for an overnight crossing with a child."],
          ["Lena is leaving the company at the end of April. I'll inherit the Terraform.", "Ask her for a walkthrough of the state layout, modules and any manual steps before she goes."],
          ["What's a fast way to learn Terraform modules?", "Read your own repo's modules with Lena, then write a small module from scratch with variables, outputs and a test using terraform plan against a sandbox account."],
          ["Mila turned six on Saturday. I baked a rye and spelt loaf for the birthday picnic.", "Happy birthday to Mila! A homemade loaf for the picnic is a lovely touch."],
        ],
      },
      {
        id: 's6',
        at: '2026-06-20T12:15',
        ex: [
          ["The GopherCon talk went well, about 300 people. Slides are on Speaker Deck.", "Congratulations! Share the link with the team and maybe write a blog post from the slides."],
          ["Someone asked about pgx's pool versus PgBouncer. I said we use both.", "That's the right answer for many teams: pgx pools per process, PgBouncer caps what reaches Postgres."],
          ["Chess: I hit 1702! Goal achieved.", "Congratulations, you made it ahead of summer!"],
          ["The cargo bike had a flat on the front wheel. The shop on Kottbusser Damm fixed it for 25 euros.", "Not bad. Consider puncture-resistant tyres or sealant since you ride it every day."],
          ["For Sardinia, which beaches near Cala Gonone are good for a six-year-old?", "Cala Fuili and Cala Cartoe have calmer water and are reachable by car; the boat trip to Cala Luna is fun but longer."],
          ["Next quarter goal: move our CI runners from Jenkins to GitHub Actions.", "Start with a self-hosted runner pool on EKS so builds keep access to internal services, and migrate pipelines one repo at a time."],
        ],
      },
    ],
    questions: [
      ['single-fact', 's1.2', 'what peak traffic does our largest service handle'],
      ['single-fact', 's1.5', 'which GitOps tool did we pick'],
      ['single-fact', 's1.3', 'who was responsible for the infrastructure code originally'],
      ['single-fact', 's2.1', 'what did I call my bread starter'],
      ['single-fact', 's2.3', 'what size is the cast iron pot I got for baking'],
      ['single-fact', 's3.1', 'how long did the Friday outage last'],
      ['single-fact', 's3.2', 'how many connections does our Postgres allow'],
      ['single-fact', 's4.1', 'how much did I pay for the cargo bike'],
      ['single-fact', 's4.2', 'how long is my ride to work'],
      ['single-fact', 's5.2', 'how much will shutting down the old cluster save each month'],
      ['single-fact', 's6.1', 'how big was the audience at my talk'],
      ['single-fact', 's6.4', 'what did the repair shop charge for the puncture'],
      ['single-fact', 's6.6', 'what CI change is planned for next quarter'],
      ['single-fact', 's1.6', 'which primary school will Mila go to'],
      ['temporal', 's1.6', "what was the deadline for my daughter's school enrolment"],
      ['temporal', 's4.5,s5.1', 'when did ledger-api finally move to the new cluster'],
      ['temporal', 's5.3', 'what are the dates of the summer holiday'],
      ['temporal', 's5.4', 'when is my colleague Lena leaving'],
      ['temporal', 's4.6', 'what was my chess rating at the start of March'],
      ['temporal', 's3.4', 'when is the outage review meeting'],
      ['temporal', 's5.2', 'on what date will the old scheduler be decommissioned'],
      ['temporal', 's4.4', 'in which month is my Go conference talk'],
      ['multi-hop', 's2.5,s3.5', 'how did ledger-api memory use change from the staging problem to after the fix'],
      ['multi-hop', 's3.2,s3.3', 'why did we run out of database connections and what is the remedy'],
      ['multi-hop', 's2.6,s4.6,s6.3', 'how did my chess rating progress toward my goal'],
      ['multi-hop', 's2.2,s3.6', 'what changed between my dense first loaf and the one that worked'],
      ['multi-hop', 's5.4,s5.5', 'who will own Terraform after Lena goes and how do I plan to learn it'],
      ['multi-hop', 's4.4,s6.1', 'what was my conference talk about and how did it go'],
      ['multi-hop', 's5.3,s6.5', 'where are we going on holiday and which beaches suit my daughter'],
      ['multi-hop', 's4.5,s5.1', 'how many services had moved by March and when was the last one done'],
      ['paraphrase', 's1.1', 'leaving the HashiCorp scheduler for a managed container platform'],
      ['paraphrase', 's3.5', 'the runtime believed it could use every processor on the machine'],
      ['paraphrase', 's3.3', 'adding a proxy in front of the database to share connections'],
      ['paraphrase', 's4.3', 'how much air should the tyres of the family bicycle have'],
      ['paraphrase', 's2.2', 'my bread came out like a brick'],
      ['paraphrase', 's5.6', 'bread I made for my kid turning six'],
      ['paraphrase', 's6.2', 'audience question about a driver pool versus a separate pooler'],
      ['paraphrase', 's1.4', 'which continuous deployment sync tool should we adopt'],
    ],
  },
  {
    id: 'priya',
    sessions: [
      {
        id: 's1',
        at: '2026-01-14T16:20',
        ex: [
          ["I'm in the third year of my PhD at Edinburgh, studying plant-pollinator networks in tropical forests.", "A great topic. Third year is usually when data collection wraps up and writing takes over, so let's plan around that."],
          ["My supervisor is Prof. Alasdair Greig; the second supervisor is Dr. Nkechi Obi.", "Noted: Alasdair Greig as primary, Nkechi Obi as secondary. Regular short updates to both will keep feedback flowing."],
          ["The thesis has to be submitted by 30 September 2026.", "That gives you about eight and a half months. Block the last two months for revisions and formatting, so aim for a complete draft by the end of July."],
          ["Fieldwork is in Danum Valley, Sabah, from February 20 to April 10.", "Seven weeks in Danum is a solid season. Plan data backups and a realistic daily schedule given the weather."],
          ["I need vaccinations: hepatitis A, typhoid, and should I get Japanese encephalitis too?", "For rural Borneo, JE is often recommended for longer stays, especially near rice fields or pigs. A travel clinic will confirm; it's two doses, so start soon."],
          ["Important: I'm allergic to penicillin. Remind me to tell the travel clinic.", "Noted: penicillin allergy. Mention it at every clinic visit and carry a card saying so in English and Malay."],
        ],
      },
      {
        id: 's2',
        at: '2026-02-05T10:10',
        ex: [
          ["Travel clinic done: hepatitis A and typhoid today, first Japanese encephalitis dose; the second is on February 12.", "Good, that completes the JE course before you fly on the 20th."],
          ["Packing for the rainforest: leech socks, dry bags, headlamp. What else?", "Add a quick-dry change of clothes kept sealed, silica gel packs, a basic first aid kit with antiseptic, insect repellent with DEET, and spare batteries."],
          ["I'm deploying camera traps, 24 Browning Recon Force units, to film flower visitors.", "24 units is a good sample. Test the trigger sensitivity on small insects; PIR sensors often miss them, so time-lapse mode might be better."],
          ["My R script for the network analysis uses the bipartite package, and the nestedness computation is painfully slow.", "Nestedness with null models is expensive. Profile first; you may be recomputing null models per metric. Running them in parallel on a cluster helps a lot."],
          ["I sent the Chapter 2 draft to Alasdair. He'll comment in about two weeks.", "Good timing, you'll have feedback while you're in the field. Ask him for high-level comments first."],
          ["I need a new flat in Marchmont. Budget 900 pounds a month; my lease ends May 31.", "Marchmont is popular with students, so start looking in April. Flats with a June 1 start will be listed about six weeks in advance."],
        ],
      },
      {
        id: 's3',
        at: '2026-03-08T18:45',
        ex: [
          ["Writing from Danum. The humidity is brutal and two camera traps already died from condensation.", "Put fresh silica gel in each housing, seal the cable ports with tape, and dry the dead ones in a sealed bag with rice or silica. Some may come back."],
          ["We recorded a stingless bee, a Tetragonula, visiting the Dillenia flowers at dawn.", "Lovely record. Early morning visits by stingless bees are common; note the exact time and temperature for your network analysis."],
          ["My field assistant is Jeffrey from Lahad Datu. He knows every trail.", "A good local assistant makes all the difference. Make sure he's credited in your acknowledgements."],
          ["A leech bite got infected. The clinic was about to give me amoxicillin but switched to doxycycline when I mentioned my allergy.", "Good that you spoke up: amoxicillin is a penicillin. Keep the wound clean and dry and go back if redness spreads."],
          ["Data so far: 1,312 visitation events across 46 plant species.", "That's a rich dataset already. Back it up in two places."],
          ["Satellite internet only works between 6 and 8 pm, so replies will be slow.", "Understood. I'll keep answers short so they load quickly."],
        ],
      },
      {
        id: 's4',
        at: '2026-04-18T09:30',
        ex: [
          ["Back in Edinburgh since April 11 and the jet lag is terrible.", "Welcome back. Get outside in the morning light and avoid naps longer than 20 minutes; it takes about a day per time zone."],
          ["Alasdair's comments on Chapter 2: reframe it around network robustness and cut the methods section by a third.", "That's a clear direction. Move detailed methods to an appendix and lead each section with the robustness question."],
          ["Nkechi suggested a Bayesian model to account for uneven sampling effort between sites.", "That makes sense: a hierarchical model in Stan or brms can estimate interaction probabilities while accounting for observation effort."],
          ["Found a flat on Warrender Park Road, 870 pounds a month, moving in on May 28.", "Under budget and close to the Meadows. Photograph everything at check-in for the deposit."],
          ["I rejoined the university orchestra on violin. Rehearsals are Wednesdays at 7 pm; we're doing Dvořák's Eighth.", "A wonderful symphony with great violin parts. A weekly rehearsal is also a good counterweight to thesis writing."],
          ["My abstract was accepted at the British Ecological Society annual meeting in Liverpool in December.", "Congratulations! That will be a good venue to present the camera trap results."],
        ],
      },
      {
        id: 's5',
        at: '2026-06-10T20:05',
        ex: [
          ["Moved into the new flat. The landlord is Mr. Henderson; the 1,305 pound deposit is held by SafeDeposits Scotland.", "Good: in Scotland the deposit must be in an approved scheme, and SafeDeposits Scotland is one. Keep the confirmation email."],
          ["Nestedness went from 9 hours to 40 minutes after switching to vegan's null models and parallelising on the Eddie cluster.", "A big speed-up. Record the exact package versions and seeds so the results are reproducible in the thesis."],
          ["Chapter 3, the camera trap chapter, has a complete draft: 11,000 words.", "Great milestone. Send it to both supervisors with a short note on what feedback you want."],
          ["Our concert is on June 28 at Greyfriars Kirk.", "Lovely venue for a symphony. Enjoy it!"],
          ["Hay fever season is awful, and cetirizine isn't helping.", "Try a different antihistamine like fexofenadine, add a steroid nasal spray, and keep windows closed on high pollen days. A GP can help if it persists."],
          ["I applied for a postdoc at Kew Gardens; the deadline was June 6.", "Fingers crossed. Kew's work on plant-pollinator interactions is a great fit."],
        ],
      },
      {
        id: 's6',
        at: '2026-08-22T14:40',
        ex: [
          ["The Kew interview is September 3, online: a 30-minute talk and then questions.", "Structure the talk around your thesis findings and one clear idea for the postdoc. Rehearse it timed, twice."],
          ["The thesis is at 62,000 words and the limit is 80,000.", "Plenty of room; focus on finishing content rather than length."],
          ["Alasdair signed off chapters 2 and 3. Chapter 4 is still messy.", "Two chapters approved is great progress. For Chapter 4, write a one-page outline first and agree it with him."],
          ["I'm thinking of asking for a three-month extension because the field season ran late.", "Extensions for fieldwork delays are common. Ask your supervisors to support the request and submit it through the graduate school well before the deadline."],
          ["Orchestra next term: Sibelius's Second.", "A big, rewarding piece. Enjoy the finale!"],
          ["Jeffrey emailed: one of the new camera traps caught a clouded leopard near our plot!", "What a record! A Sunda clouded leopard on your cameras is remarkable; make sure the footage is backed up."],
        ],
      },
    ],
    questions: [
      ['single-fact', 's1.1', 'what is my doctoral research about'],
      ['single-fact', 's1.2', 'who is my second supervisor'],
      ['single-fact', 's1.6', 'which antibiotic class am I allergic to'],
      ['single-fact', 's2.3', 'how many camera units did I take to film flowers'],
      ['single-fact', 's2.4', 'which R package does my network analysis use'],
      ['single-fact', 's2.6', 'what monthly rent could I afford for a new flat'],
      ['single-fact', 's3.3', 'what is the name of my field assistant'],
      ['single-fact', 's3.5', 'how many visitation events did we record in the field'],
      ['single-fact', 's3.2', 'which bee was seen on the Dillenia flowers'],
      ['single-fact', 's4.4', 'what street is my new flat on and what does it cost'],
      ['single-fact', 's5.1', 'who holds my rental deposit'],
      ['single-fact', 's4.5', 'which symphony is the orchestra rehearsing this spring'],
      ['single-fact', 's5.3', 'how long is the draft of the camera trap chapter'],
      ['single-fact', 's6.2', 'what is the thesis word limit'],
      ['temporal', 's1.3', 'what is the submission deadline for the thesis'],
      ['temporal', 's2.1', 'when was the second encephalitis shot'],
      ['temporal', 's1.4', 'what were the start and end dates of the field season'],
      ['temporal', 's4.1', 'when did I get back to Scotland'],
      ['temporal', 's5.4', 'when is the concert at Greyfriars'],
      ['temporal', 's6.1', 'when is my Kew interview'],
      ['temporal', 's4.4,s5.1', 'when did I move into the new flat'],
      ['temporal', 's4.5', 'what day and time are orchestra rehearsals'],
      ['multi-hop', 's2.5,s4.2', 'when did I send Chapter 2 and what did my supervisor say about it'],
      ['multi-hop', 's3.4,s1.6', 'why did the clinic switch my antibiotic for the infected bite'],
      ['multi-hop', 's2.4,s5.2', 'how slow was the nestedness calculation and how much faster is it now'],
      ['multi-hop', 's3.3,s6.6', 'what news did the man who guided me on the trails send after I left'],
      ['multi-hop', 's6.3,s5.3', 'which chapters are approved and how long is the camera trap one'],
      ['multi-hop', 's6.4,s1.3', 'why might I ask for an extension and what deadline would it move'],
      ['multi-hop', 's3.1,s2.3', 'how many of the trail cameras did I bring and what happened to some of them'],
      ['multi-hop', 's2.6,s4.4', 'did I find a flat within my budget'],
      ['paraphrase', 's2.2', 'gear to bring for working in the jungle'],
      ['paraphrase', 's3.6', 'connection only available in the evening'],
      ['paraphrase', 's5.5', 'sneezing from pollen and the tablets do nothing'],
      ['paraphrase', 's1.5', 'which jabs do I need before travelling to Borneo'],
      ['paraphrase', 's4.6', 'talk submission accepted at the ecology society meeting'],
      ['paraphrase', 's4.3', 'co-supervisor recommends a probabilistic model for unequal observation effort'],
      ['paraphrase', 's5.6', 'research job application at the botanic garden in London'],
      ['paraphrase', 's6.5', 'what the orchestra plays in the autumn term'],
    ],
  },
  {
    id: 'kenji',
    sessions: [
      {
        id: 's1',
        at: '2026-01-10T06:30',
        ex: [
          ["I run a small coffee roastery in Portland called Kumo Coffee, with three employees.", "Nice! A small team means you can stay close to quality. Tell me where you'd like help: sourcing, pricing, operations or marketing."],
          ["Our roaster is a 12-kilo Diedrich IR-12.", "A solid machine for your size; the infrared burners are forgiving. Keep a maintenance log for the chaff collector and exhaust."],
          ["Green coffee comes from Cafe Imports. Our main lots are Huila in Colombia and Sidamo in Ethiopia.", "Good, stable origins. Ask Cafe Imports about forward contracts to smooth out price swings."],
          ["Wholesale price of our house blend, Morning Fog, is $14.50 a pound.", "Let's check that against your green cost, roast loss (around 15%), labour and packaging to see your margin."],
          ["Quarterly estimated taxes are due January 15. My accountant is Denise Park.", "Noted: Denise Park handles your taxes, and the Q4 estimated payment is due January 15."],
          ["I tore my meniscus playing soccer and I'm doing physical therapy twice a week.", "Sorry to hear that. Stick with the PT exercises; meniscus injuries often recover well without surgery if you're patient."],
        ],
      },
      {
        id: 's2',
        at: '2026-02-02T07:15',
        ex: [
          ["Cafe Imports raised prices: the Huila lot went from $4.10 to $4.85 a pound green.", "That's an 18% increase on your main component. With roast loss, it adds roughly 90 cents per roasted pound."],
          ["Should I raise Morning Fog's wholesale price? Our margin is already thin.", "Probably yes. Passing on the green increase plus a little buffer is normal; most café clients expect an annual adjustment."],
          ["Decided: Morning Fog goes to $15.75 from March 1, and we'll give the cafés 30 days' notice.", "Clear and fair. Send the notice with a short explanation about green prices."],
          ["I hired a roaster assistant, Marisol. She starts February 16.", "Congratulations on growing the team. Plan her first two weeks: safety, cleaning, then shadowing roasts."],
          ["Our Instagram engagement is dropping. Should we post more roasting videos?", "Short videos of first crack and cooling trays do well. Try three reels a week for a month and compare."],
          ["PT says no running for another six weeks, but swimming is fine.", "Swimming keeps your fitness without loading the knee. Follow the timeline."],
        ],
      },
      {
        id: 's3',
        at: '2026-03-05T12:00',
        ex: [
          ["Trip planning: I'm visiting a farm in Huila, Colombia, April 14 to 24, with the importer.", "An origin trip will deepen the relationship. Bring cupping gear and ask about processing and harvest timing."],
          ["Which vaccinations do I need for rural Colombia? Yellow fever?", "Yellow fever is recommended for some rural areas, plus hepatitis A and typhoid. See a travel clinic at least four weeks before."],
          ["Marisol is great, she's already dialing in the Ethiopian profile.", "Great hire. Let her own a coffee's profile end to end; it builds skill quickly."],
          ["Our health inspection is on March 19.", "Check the temperature logs, handwashing station, pest control records and labelling before then."],
          ["New wholesale client: Lantern Bakery, 40 pounds a week.", "A steady weekly order like that is valuable. Set a standing delivery day."],
          ["My Spanish is basic. How do I ask a farmer about fermentation time?", "Try: '¿Cuántas horas fermentan el café?' and '¿Fermentan en tanque con agua o en seco?'"],
        ],
      },
      {
        id: 's4',
        at: '2026-04-28T08:10',
        ex: [
          ["Back from Colombia. We visited Finca El Mirador, owned by Doña Rosa Quintero, at about 2,000 meters.", "High altitude, small farm, direct relationship: a great story for a single origin."],
          ["I bought 20 bags of their washed Caturra, 70 kg each, for July arrival.", "1,400 kg green is a good commitment for your size; plan roasting capacity and storage for July."],
          ["We passed the health inspection with 98 points.", "Excellent score. Share it with your wholesale clients."],
          ["Knee update: the MRI shows healing and I'm cleared to jog lightly.", "Great news. Build up slowly: walk-jog intervals before continuous runs."],
          ["I'm thinking of launching El Mirador as a limited single origin in August.", "A limited release with the farmer's story fits well. Time it for when the coffee has rested after roasting tests."],
          ["Denise says we should elect S-corp status to save on self-employment tax.", "It can save a lot once profit exceeds a reasonable salary. It means running payroll for yourself, so factor in the costs."],
        ],
      },
      {
        id: 's5',
        at: '2026-06-15T15:20',
        ex: [
          ["Lantern Bakery doubled their order to 80 pounds a week.", "Wonderful. Check that your roasting schedule can absorb it."],
          ["The roaster's exhaust fan is making a grinding noise. A Diedrich technician is coming June 22.", "Grinding usually means bearings. Clean the fan and stack in the meantime and don't ignore it; a seized fan is a fire risk."],
          ["Summer cold brew program: is a 1:5 concentrate ratio right?", "1:5 by weight makes a strong concentrate to dilute 1:1 with water or milk; steep 16 to 18 hours cold."],
          ["Marisol wants to compete in the US Roaster Championship qualifier.", "Support her; the prep makes her a better roaster and it's good exposure for Kumo."],
          ["The roasting reels worked: Instagram followers went from 4,100 to 6,800.", "That's a 66% increase. Keep the cadence."],
          ["We booked a booth at the Portland Coffee Fest on September 12.", "Great for visibility. Plan samples of El Mirador there."],
        ],
      },
      {
        id: 's6',
        at: '2026-08-09T09:00',
        ex: [
          ["The El Mirador coffee arrived July 30. It cupped at 87.5.", "Superb score for a washed Caturra. It justifies premium pricing."],
          ["El Mirador release is set for August 24: 250 bags of 12 ounces at $24 each.", "At $24 and 250 bags that's $6,000 in sales; announce it a week ahead on Instagram."],
          ["The S-corp election is filed and takes effect next January.", "Good. Set up payroll in December so it's ready from January."],
          ["The fan is fixed: bearing replaced, $640.", "Reasonable for a bearing job. Add fan cleaning to the monthly maintenance."],
          ["Knee: I ran 5 km without pain!", "That's a big milestone after the meniscus tear. Keep strength work going."],
          ["I need a label design for the release. The illustrator is Hana Sato, fee $1,200.", "Give her the farm story, photos from the trip and the print specs. Ask for the files in vector format."],
        ],
      },
    ],
    questions: [
      ['single-fact', 's1.1', 'what is my coffee business called'],
      ['single-fact', 's1.2', 'which roasting machine do we use'],
      ['single-fact', 's1.5', 'who does my taxes'],
      ['single-fact', 's2.1', 'what does the Colombian green cost now after the increase'],
      ['single-fact', 's2.4', 'what is the name of the assistant I hired for roasting'],
      ['single-fact', 's3.5', 'which bakery became a wholesale customer'],
      ['single-fact', 's4.1', 'at what elevation is the farm we visited'],
      ['single-fact', 's4.2', 'how many sacks did I buy from the farm'],
      ['single-fact', 's4.3', 'what score did we get on the health inspection'],
      ['single-fact', 's5.5', 'how many Instagram followers do we have now'],
      ['single-fact', 's6.1', 'what cupping score did the new lot get'],
      ['single-fact', 's6.4', 'how much did the fan repair cost'],
      ['single-fact', 's6.6', 'who is designing the label'],
      ['single-fact', 's6.2', 'what is the retail price of the limited release bag'],
      ['temporal', 's1.5', 'when are the quarterly estimated taxes due'],
      ['temporal', 's2.3', 'from which date does the house blend cost more'],
      ['temporal', 's3.1', 'when was the Colombia trip'],
      ['temporal', 's3.4', 'what day was the health inspection'],
      ['temporal', 's5.2', 'when is the technician visiting to look at the roaster'],
      ['temporal', 's5.6', 'when is the coffee festival booth'],
      ['temporal', 's6.1', 'when did the Colombian beans arrive'],
      ['temporal', 's6.3', 'when does the new tax status take effect'],
      ['multi-hop', 's3.5,s5.1', "how have Lantern Bakery's orders changed"],
      ['multi-hop', 's2.1,s2.3', 'why did I raise the house blend price and to what'],
      ['multi-hop', 's4.1,s6.2', "who grows the limited release coffee and when does it go on sale"],
      ['multi-hop', 's1.6,s2.6,s4.4,s6.5', 'how has my knee recovered since the injury'],
      ['multi-hop', 's2.5,s5.5', 'did posting more roasting videos help our social media'],
      ['multi-hop', 's5.2,s6.4', 'what was wrong with the fan and was it repaired'],
      ['multi-hop', 's4.6,s6.3', 'what did my accountant recommend and did we go ahead'],
      ['multi-hop', 's2.4,s5.4', 'when did Marisol start and what competition does she want to enter'],
      ['paraphrase', 's5.3', 'strength of the steeped iced coffee base for summer'],
      ['paraphrase', 's3.2', 'shots needed before the trip to South America'],
      ['paraphrase', 's3.6', 'asking growers about processing in their language'],
      ['paraphrase', 's2.5', 'fewer likes and comments on our social posts'],
      ['paraphrase', 's1.4', 'what cafés pay per pound for our signature blend'],
      ['paraphrase', 's1.3', 'where we buy unroasted beans'],
      ['paraphrase', 's4.6', 'changing the company structure to cut payroll levies'],
      ['paraphrase', 's5.6', 'exhibitor stand at the local trade show'],
    ],
  },
];

/** Everyday exchanges with no user-specific facts, interleaved into every session. */
const filler: Ex[] = [
  ['How many grams is three quarters of a cup of butter?', 'About 170 grams. A US cup of butter is roughly 227 g, so three quarters is 170 g.'],
  ['Fix this regex for dates like 2024-03-05: \\d+-\\d+-\\d+', 'Use ^\\d{4}-\\d{2}-\\d{2}$ to require four digits, then two and two, anchored so nothing else matches.'],
  ['Summarize TCP vs UDP in two lines.', 'TCP is connection-oriented, ordered and reliable, with retransmission. UDP sends independent datagrams with no delivery guarantee, trading reliability for low latency.'],
  ['Give me a formal synonym for "improve" for an email.', 'Options: "enhance", "strengthen", "refine", or "optimize", depending on what is being improved.'],
  ['Write a haiku about autumn rain.', 'Gray rain on the roofs / maple leaves slide down the glass / the kettle answers'],
  ['How do I undo my last git commit but keep the changes?', 'Run git reset --soft HEAD~1. The commit is removed and its changes stay staged.'],
  ['What is the capital of Australia?', 'Canberra, not Sydney. It was purpose-built as a compromise between Sydney and Melbourne.'],
  ['Explain compound interest with a quick example.', '1,000 at 5% a year becomes 1,050 after one year and 1,102.50 after two, because the second year earns interest on the interest too.'],
  ['How long do I boil an egg for a jammy yolk?', 'Six and a half to seven minutes from boiling for a large egg, then straight into ice water.'],
  ['Recommend a good history podcast.', 'Try "The Rest Is History" for lively episodes, or "Hardcore History" for long deep dives.'],
  ["What's the time difference between Tokyo and London?", 'Tokyo is 9 hours ahead of London in winter and 8 hours ahead during British Summer Time.'],
  ['Draft a polite reminder about an unpaid invoice.', 'Hi, I hope you are well. A quick reminder that invoice #__ was due on __. Could you let me know when payment is planned? Thanks so much.'],
  ['How do I center a div with CSS?', 'On the parent: display: flex; justify-content: center; align-items: center. Or display: grid; place-items: center.'],
  ['At what temperature does water boil at 2,000 metres?', 'Roughly 93°C, because air pressure is lower at that altitude.'],
  ['How do you say good morning in Japanese?', 'Ohayō gozaimasu (おはようございます); among friends just ohayō.'],
  ['What is a Bloom filter?', 'A compact probabilistic set: it can say an item is definitely absent or possibly present, using a bit array and several hash functions.'],
  ['How many tablespoons are in a cup?', 'Sixteen tablespoons in a US cup.'],
  ['Spreadsheet formula to sum column B where column C says paid?', 'Use =SUMIF(C:C, "paid", B:B).'],
  ['Affect or effect: which is the verb?', '"Affect" is usually the verb (to influence) and "effect" the noun (a result). "Effect" as a verb means to bring about.'],
  ['Is it safe to leave cooked rice out overnight?', 'Better not: Bacillus cereus spores survive cooking. Cool rice within an hour and refrigerate it.'],
  ['Recommend a science fiction novel.', '"The Left Hand of Darkness" by Ursula K. Le Guin, or "Project Hail Mary" by Andy Weir for something lighter.'],
  ['Suggest a 20-minute bodyweight workout.', 'Four rounds of: 12 squats, 10 push-ups, 12 lunges per leg, 30 seconds plank, 45 seconds rest.'],
  ['What does HTTP status 418 mean?', '"I\'m a teapot": an April Fools\' joke from RFC 2324 that some servers return for fun.'],
  ['Name ideas for a new houseplant?', 'Fernando the fern, Leaf Erickson, Sir Growsalot, or Planty McPlantface.'],
];

const here = dirname(fileURLToPath(import.meta.url));
const pad = (n: number) => String(n).padStart(2, '0');

function main() {
  const files: string[] = [];
  const questions: string[] = [];
  let slot = 0;
  users.forEach((u) => {
    const ids = new Set<string>();
    for (const s of u.sessions) {
      const day = s.at.slice(0, 10);
      const weekday = new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { weekday: 'long', timeZone: 'UTC' });
      // Two everyday exchanges per session, after the 2nd and 4th real ones; the pool is walked in
      // a fixed stride so neighbouring sessions get different ones.
      const seq: Array<{ ex: Ex; ref?: string }> = [];
      s.ex.forEach((ex, i) => {
        seq.push({ ex, ref: `${s.id}.${i + 1}` });
        if (i === 1 || i === 3) seq.push({ ex: filler[(slot++ * 7) % filler.length]! });
      });
      let minutes = Number(s.at.slice(11, 13)) * 60 + Number(s.at.slice(14, 16));
      seq.forEach((item, i) => {
        const t = `${pad(Math.floor(minutes / 60) % 24)}:${pad(minutes % 60)}`;
        const t2 = `${pad(Math.floor((minutes + 1) / 60) % 24)}:${pad((minutes + 1) % 60)}`;
        minutes += 3 + ((i * 5) % 4);
        const uri = `ctx://user/${u.id}/memories/chats/${day}-${s.id}/turn-${pad(i + 1)}.md`;
        const content = `Chat with the assistant, ${weekday} ${day}\n\n[${day} ${t}] ${u.id}: ${item.ex[0]}\n\n[${day} ${t2}] assistant: ${item.ex[1]}\n`;
        const id = item.ref ? `${u.id}/${item.ref}` : `${u.id}/${s.id}.filler${i + 1}`;
        ids.add(id);
        files.push(JSON.stringify({ id, user: u.id, session: s.id, date: day, uri, content }));
      });
    }
    u.questions.forEach(([kind, rel, text], qi) => {
      const relevant = rel.split(',').map((r) => `${u.id}/${r.trim()}`);
      for (const r of relevant) if (!ids.has(r)) throw new Error(`${u.id} question ${qi + 1}: unknown exchange ${r}`);
      questions.push(JSON.stringify({ id: `${u.id}-q${pad(qi + 1)}`, user: u.id, kind, relevant, query: text }));
    });
  });
  writeFileSync(join(here, 'sets/conversations.jsonl'), files.join('\n') + '\n');
  writeFileSync(join(here, 'sets/conv-questions.jsonl'), questions.join('\n') + '\n');
  const sessions = users.reduce((n, u) => n + u.sessions.length, 0);
  console.log(`${users.length} users, ${sessions} sessions, ${files.length} files, ${questions.length} questions`);
}

main();
