#!/usr/bin/env python3
"""Writes examples/data/: the Larkspur Transit knowledge base (chunks with ids) and logged RAG
interactions over it. Written by the tala developers for the demo; the scenario of each
interaction is kept in its `scenario` field (metadata, passed through to the results)."""
import json, pathlib

KB = {
 "fares-2025": "Larkspur Transit fares from 1 January 2025: a single ride costs 2.40 euros and is valid for 90 minutes of transfers on buses and trams. Children under 12 ride free.",
 "fares-2022": "Larkspur Transit fares from 1 March 2022: a single ride costs 2.10 euros and is valid for 60 minutes of transfers on buses and trams.",
 "monthly-pass": "The monthly pass costs 58 euros and gives unlimited rides on buses, trams and the harbour ferry. Students with a valid card pay 35 euros.",
 "night-bus": "Night buses N1 to N6 run every 30 minutes between 00:30 and 05:00 from Central Station. Night buses accept all day tickets and passes.",
 "bikes": "Larkspur Bikes has 140 docking stations. The first 30 minutes of every ride are free for pass holders; each further 30 minutes costs 1 euro.",
 "refunds": "Refunds for unused monthly passes are paid pro rata within 14 days when the pass is returned at a service centre before the 15th of the month.",
 "accessibility": "All trams have step-free access. Wheelchair users travel free with one companion, and ramps on buses are deployed by the driver on request.",
 "lost-property": "Lost property is kept for 30 days at the Central Station service centre, which is open Monday to Saturday from 8:00 to 18:00.",
 "ferry": "The harbour ferry sails every 20 minutes from Pier 3 between 6:00 and 23:00. Bicycles are carried free of charge on the ferry.",
 "app": "Tickets can be bought in the Larkspur Go app with a card or mobile wallet. A ticket bought in the app must be activated before boarding.",
 "strikes": "During announced strikes, a reduced timetable runs on tram lines 1 and 4 only, and passes are extended by one day for each strike day.",
 "history": "Larkspur Transit was founded in 1961 when the city merged its tram company with two private bus operators.",
}

def row(i, scenario, question, response, ids, reference, ref_ids=None):
    r = {"id": f"demo-{i:02d}", "user_input": question, "response": response,
         "retrieved_contexts": [KB[c] for c in ids], "retrieved_context_ids": ids,
         "reference": reference, "scenario": scenario}
    if ref_ids: r["reference_context_ids"] = ref_ids
    return r

rows = [
 row(1, "clean success", "How much does a single ride cost?",
     "A single ride costs 2.40 euros and is valid for 90 minutes of transfers.",
     ["fares-2025", "monthly-pass"], "A single ride costs 2.40 euros, valid for 90 minutes.", ["fares-2025"]),
 row(2, "clean success", "When do the night buses run?",
     "Night buses N1 to N6 run every 30 minutes between 00:30 and 05:00 from Central Station.",
     ["night-bus", "strikes"], "Every 30 minutes from 00:30 to 05:00, starting at Central Station.", ["night-bus"]),
 row(3, "clean success", "How long is lost property kept?",
     "Lost property is kept for 30 days at the Central Station service centre.",
     ["lost-property", "app"], "30 days, at the Central Station service centre.", ["lost-property"]),
 row(4, "clean success", "Can I take my bicycle on the ferry?",
     "Yes. Bicycles are carried free of charge on the harbour ferry.",
     ["ferry", "bikes"], "Yes, bicycles travel free on the ferry.", ["ferry"]),
 row(5, "retriever miss", "How much does the monthly pass cost for students?",
     "Students pay 35 euros for the monthly pass.",
     ["fares-2025", "night-bus"], "Students with a valid card pay 35 euros a month.", ["monthly-pass"]),
 row(6, "retriever miss", "What are the opening hours of the service centre?",
     "The service centre is open Monday to Saturday from 8:00 to 18:00.",
     ["refunds", "app"], "Monday to Saturday, 8:00 to 18:00.", ["lost-property"]),
 row(7, "retriever miss", "When was Larkspur Transit founded?",
     "Larkspur Transit was founded in 1961.",
     ["strikes", "accessibility"], "In 1961.", ["history"]),
 row(8, "noisy ranking", "Do wheelchair users pay for the tram?",
     "Wheelchair users travel free with one companion.",
     ["bikes", "ferry", "app", "accessibility"], "No, wheelchair users travel free, with one companion.", ["accessibility"]),
 row(9, "noisy ranking", "How do I get a refund for my monthly pass?",
     "Return the unused pass at a service centre before the 15th of the month; the refund is paid pro rata within 14 days.",
     ["history", "lost-property", "refunds"], "Return it at a service centre before the 15th; a pro rata refund follows within 14 days.", ["refunds"]),
 row(10, "noisy ranking", "How often does the ferry sail?",
     "The harbour ferry sails every 20 minutes from Pier 3.",
     ["night-bus", "strikes", "ferry"], "Every 20 minutes, from Pier 3, between 6:00 and 23:00.", ["ferry"]),
 row(11, "hallucinated claim", "How much does the monthly pass cost?",
     "The monthly pass costs 58 euros and includes free parking at Park and Ride sites.",
     ["monthly-pass"], "58 euros, for unlimited rides on buses, trams and the ferry.", ["monthly-pass"]),
 row(12, "hallucinated claim", "How many docking stations does Larkspur Bikes have?",
     "Larkspur Bikes has 240 docking stations across the city.",
     ["bikes"], "140 docking stations.", ["bikes"]),
 row(13, "hallucinated claim", "What happens to passes during a strike?",
     "Passes are extended by one week for each strike day, and all tram lines keep running.",
     ["strikes"], "Passes are extended by one day per strike day; only tram lines 1 and 4 run.", ["strikes"]),
 row(14, "faithful but off-topic", "Can I buy a ticket on the tram?",
     "Larkspur Transit was founded in 1961 when the city merged its tram company with two private bus operators.",
     ["history", "app"], "Buy it in the Larkspur Go app and activate it before boarding.", ["app"]),
 row(15, "faithful but off-topic", "Is the first half hour on a bike free?",
     "The harbour ferry sails every 20 minutes from Pier 3 between 6:00 and 23:00.",
     ["ferry", "bikes"], "Yes, for pass holders the first 30 minutes are free.", ["bikes"]),
 row(16, "noncommittal", "Do night buses accept day tickets?",
     "I don't know; the documents do not say.",
     ["night-bus"], "Yes, night buses accept all day tickets and passes.", ["night-bus"]),
 row(17, "noncommittal", "Where is the lost property office?",
     "I'm not sure, there is not enough information to answer.",
     ["lost-property"], "At the Central Station service centre.", ["lost-property"]),
 row(18, "outdated chunk", "How much does a single ride cost?",
     "A single ride costs 2.10 euros and is valid for 60 minutes.",
     ["fares-2022", "monthly-pass"], "A single ride costs 2.40 euros, valid for 90 minutes.", ["fares-2025"]),
 row(19, "outdated chunk", "How long is a single ticket valid for transfers?",
     "A single ticket is valid for 60 minutes of transfers.",
     ["fares-2022", "fares-2025"], "90 minutes.", ["fares-2025"]),
 row(20, "clean success", "Do children pay fares?",
     "Children under 12 ride free.",
     ["fares-2025"], "Children under 12 ride free.", ["fares-2025"]),
 row(21, "clean success", "How do I buy a ticket in the app?",
     "Buy it in the Larkspur Go app with a card or mobile wallet, and activate it before boarding.",
     ["app", "fares-2025"], "In the Larkspur Go app, paying by card or mobile wallet; activate it before boarding.", ["app"]),
 row(22, "hallucinated claim", "Are the buses step-free?",
     "All buses and trams have step-free access and automatic ramps.",
     ["accessibility"], "Trams are step-free; bus drivers deploy ramps on request.", ["accessibility"]),
]

out = pathlib.Path(__file__).parent / "data"
out.mkdir(exist_ok=True)
with open(out / "knowledge_base.jsonl", "w") as f:
    for cid, text in KB.items():
        f.write(json.dumps({"id": cid, "text": text}, ensure_ascii=False) + "\n")
with open(out / "interactions.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {len(KB)} chunks and {len(rows)} interactions to {out}")
