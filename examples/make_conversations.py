#!/usr/bin/env python3
"""Writes examples/data/conversations.jsonl: 20 chats with the example app's knowledge base
(examples/data/knowledge_base.jsonl), 3 to 6 turns each, as conversation rows (user_input a list
of messages; each ai message carries the passages it was generated from). Twelve carry one
seeded fault, named in the row's `faults` field with its turn: a hallucinated answer, an answer
from a wrong passage (the retriever missed), a turn that forgets what the user said, an ask
never met. The other eight are clean. Deterministic: run it again and the file is identical.

    /usr/bin/python3 examples/make_conversations.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
KB = {}
with open(os.path.join(HERE, "data", "knowledge_base.jsonl")) as f:
    for line in f:
        doc = json.loads(line)
        KB[doc["id"]] = doc["text"]


def turn(user, answer, *docs):
    """One turn: the user's message, the answer and the passages it was generated from."""
    return (user, answer, list(docs))


# Each conversation: its turns, and its faults as (turn, kind).
CONVERSATIONS = [
    # --- clean ---
    ([turn("How much does a single ride cost?", "A single ride costs 2.40 euros.", "fares-2025"),
      turn("And how long is it valid for transfers?",
           "A single ride is valid for 90 minutes of transfers on buses and trams.", "fares-2025"),
      turn("Do my children need a ticket? They are 8 and 10.",
           "No, children under 12 ride free, so your children do not need a ticket.",
           "fares-2025")], []),
    ([turn("What does the monthly pass cost?",
           "The monthly pass costs 58 euros and gives unlimited rides on buses, trams and the "
           "harbour ferry.", "monthly-pass"),
      turn("I am a student. Is there a discount?",
           "Yes, students with a valid card pay 35 euros for the monthly pass.", "monthly-pass"),
      turn("Can I use the pass on the night buses?",
           "Yes, night buses accept all day tickets and passes.", "night-bus", "monthly-pass")],
     []),
    ([turn("Are there buses at night?",
           "Yes, night buses N1 to N6 run every 30 minutes between 00:30 and 05:00 from Central "
           "Station.", "night-bus"),
      turn("Where do they leave from?", "The night buses leave from Central Station.",
           "night-bus"),
      turn("How often do they run?", "Night buses run every 30 minutes.", "night-bus"),
      turn("Thanks! Do they accept my monthly pass?",
           "Yes, night buses accept all day tickets and passes.", "night-bus")], []),
    ([turn("I lost my umbrella on a tram yesterday. Where can I get it back?",
           "Lost property is kept for 30 days at the Central Station service centre.",
           "lost-property"),
      turn("When is the service centre open?",
           "The Central Station service centre is open Monday to Saturday from 8:00 to 18:00.",
           "lost-property"),
      turn("How long will they keep my umbrella?",
           "Lost property is kept for 30 days, so you have a month to collect your umbrella.",
           "lost-property")], []),
    ([turn("How often does the harbour ferry sail?",
           "The harbour ferry sails every 20 minutes from Pier 3.", "ferry"),
      turn("What are its first and last sailings?",
           "The ferry sails between 6:00 and 23:00.", "ferry"),
      turn("Can I take my bicycle on board?",
           "Yes, bicycles are carried free of charge on the ferry.", "ferry"),
      turn("Is the ferry included in the monthly pass?",
           "Yes, the monthly pass gives unlimited rides on buses, trams and the harbour ferry.",
           "monthly-pass")], []),
    ([turn("Can I buy a ticket on my phone?",
           "Yes, tickets can be bought in the Larkspur Go app with a card or mobile wallet.",
           "app"),
      turn("Do I have to do anything before I get on the tram?",
           "Yes, a ticket bought in the app must be activated before boarding.", "app"),
      turn("How much is a single ticket?", "A single ride costs 2.40 euros.", "fares-2025")],
     []),
    ([turn("Are the trams accessible for wheelchair users?",
           "Yes, all trams have step-free access.", "accessibility"),
      turn("My father uses a wheelchair. Does he need to pay?",
           "No, wheelchair users travel free, together with one companion.", "accessibility"),
      turn("What about buses?",
           "On buses, the driver deploys a ramp on request.", "accessibility"),
      turn("When was Larkspur Transit founded, by the way?",
           "Larkspur Transit was founded in 1961.", "history"),
      turn("How did it start?",
           "It started when the city merged its tram company with two private bus operators.",
           "history")], []),
    ([turn("How many bike docking stations are there?",
           "Larkspur Bikes has 140 docking stations.", "bikes"),
      turn("I have a monthly pass. Are the bikes free for me?",
           "As a pass holder, the first 30 minutes of every ride are free.", "bikes"),
      turn("And after that?", "Each further 30 minutes costs 1 euro.", "bikes")], []),
    # --- hallucinated answers ---
    ([turn("How much does a single ride cost?", "A single ride costs 2.40 euros.", "fares-2025"),
      turn("How long is it valid for transfers?",
           "A single ride is valid for three hours and also covers the metro and regional "
           "trains.", "fares-2025"),
      turn("Do children ride free?", "Yes, children under 12 ride free.", "fares-2025")],
     [(2, "hallucination")]),
    ([turn("What happens to the trams during a strike?",
           "During announced strikes, a reduced timetable runs on tram lines 1 and 4 only.",
           "strikes"),
      turn("Do I lose days on my monthly pass when there is a strike?",
           "You get a full refund of the month, paid in cash at any ticket machine within two "
           "hours.", "strikes"),
      turn("Which tram lines still run?", "Tram lines 1 and 4 still run during strikes.",
           "strikes"),
      turn("Do the night buses run during strikes?",
           "I am not sure, but night buses probably run every 10 minutes on strike days and are "
           "free for everyone.", "night-bus")], [(2, "hallucination"), (4, "hallucination")]),
    ([turn("Can I get a refund on my unused monthly pass?",
           "Yes, unused monthly passes are refunded pro rata within 14 days.", "refunds"),
      turn("Where do I return it?", "You return the pass at a service centre.", "refunds"),
      turn("Is there a deadline?",
           "Yes, the pass must be returned before the 15th of the month.", "refunds"),
      turn("How is the refund paid?",
           "The refund is paid as store credit for the Larkspur cafe at Pier 3.", "refunds")],
     [(4, "hallucination")]),
    # --- answers from a wrong passage (retriever misses) ---
    ([turn("How often does the harbour ferry sail?",
           "The harbour ferry sails every 20 minutes from Pier 3.", "ferry"),
      turn("Can I bring my bicycle on the ferry?",
           "Yes, bicycles are carried free of charge on the ferry.", "bikes"),
      turn("When does the last ferry leave?", "The last ferry leaves at 23:00.", "ferry")],
     [(2, "wrong_chunk")]),
    ([turn("Where is lost property kept?",
           "Lost property is kept at the Central Station service centre.", "lost-property"),
      turn("How long do they keep it?", "Lost property is kept for 30 days.", "refunds"),
      turn("When is the service centre open?",
           "It is open Monday to Saturday from 8:00 to 18:00.", "lost-property")],
     [(2, "wrong_chunk")]),
    ([turn("What does the monthly pass cost?", "The monthly pass costs 58 euros.",
           "monthly-pass"),
      turn("Do night buses take it?", "Yes, night buses accept all day tickets and passes.",
           "history"),
      turn("Until what time do night buses run?", "Night buses run until 05:00.",
           "night-bus")], [(2, "wrong_chunk")]),
    # --- turns that forget what the user said ---
    ([turn("I am a student and I travel every day. Which ticket should I buy?",
           "A monthly pass gives unlimited rides on buses, trams and the harbour ferry.",
           "monthly-pass"),
      turn("How much would it cost me?",
           "Are you a student? Students with a valid card pay 35 euros, otherwise the pass "
           "costs 58 euros.", "monthly-pass"),
      turn("Can I use it on the ferry?",
           "Yes, the monthly pass covers the harbour ferry.", "monthly-pass")],
     [(2, "forgets")]),
    ([turn("I am travelling with my two children, they are 8 and 10.",
           "Children under 12 ride free on Larkspur Transit.", "fares-2025"),
      turn("How much will a single ride cost for us?",
           "Your three children ride free, so you only pay one single ride of 2.40 euros.",
           "fares-2025"),
      turn("How long can we transfer?",
           "A single ride is valid for 90 minutes of transfers on buses and trams.",
           "fares-2025")], [(2, "forgets")]),
    ([turn("I lost my phone on the ferry on Saturday.",
           "Lost property is kept for 30 days at the Central Station service centre.",
           "lost-property"),
      turn("Can I pick it up today?",
           "The service centre is open Monday to Saturday from 8:00 to 18:00.",
           "lost-property"),
      turn("Until when will they keep it?",
           "Since you lost it on Tuesday, it is kept for 30 days from Tuesday.",
           "lost-property")], [(3, "forgets")]),
    ([turn("My father uses a wheelchair and I go with him.",
           "Wheelchair users travel free with one companion.", "accessibility"),
      turn("Do both of us need tickets for the tram?",
           "How many people are travelling with the wheelchair user? One companion travels "
           "free.", "accessibility"),
      turn("Are all trams step-free?", "Yes, all trams have step-free access.",
           "accessibility")], [(2, "forgets")]),
    # --- asks never met ---
    ([turn("Can I buy tickets in the app?",
           "Yes, tickets can be bought in the Larkspur Go app with a card or mobile wallet.",
           "app"),
      turn("Can I pay with a mobile wallet, and do I need to activate the ticket?",
           "Yes, you can pay with a card or a mobile wallet.", "app"),
      turn("Where do I download the app?",
           "I can help you with questions about fares and timetables.", "app")],
     [(3, "unmet_ask")]),
    ([turn("How many docking stations does Larkspur Bikes have?",
           "Larkspur Bikes has 140 docking stations.", "bikes"),
      turn("What does a bike ride cost after the free half hour?",
           "Larkspur Bikes is a popular way to get around the city.", "bikes"),
      turn("Thanks. Are bikes allowed on the ferry?",
           "Yes, bicycles are carried free of charge on the ferry.", "ferry")],
     [(2, "unmet_ask")]),
]


def main():
    out = os.path.join(HERE, "data", "conversations.jsonl")
    with open(out, "w") as f:
        for n, (turns, faults) in enumerate(CONVERSATIONS, 1):
            messages = []
            for user, answer, docs in turns:
                messages.append({"type": "human", "content": user})
                messages.append({"type": "ai", "content": answer,
                                 "retrieved_contexts": [KB[d] for d in docs],
                                 "retrieved_context_ids": list(docs)})
            row = {"id": "chat-%02d" % n, "user_input": messages,
                   "faults": [{"turn": t, "kind": k} for t, k in faults]}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print("wrote", out, len(CONVERSATIONS), "conversations")


if __name__ == "__main__":
    main()
