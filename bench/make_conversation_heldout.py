#!/usr/bin/env python3
"""Writes bench/data/conversations_heldout.jsonl: 10 chats with a public library's help desk,
another domain than the example app's transit knowledge base, written after the conversation
readings (core/turn_question, judges/offline/conversation_reading) and never used to change
them: the figures bench/conversation_faults.py prints on it are the readings' reach, where the
bundled examples/data/conversations.jsonl gives their fit. Four chats are clean; six carry one
seeded fault each (named in `faults` with its turn). Deterministic.

    /usr/bin/python3 bench/make_conversation_heldout.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = {
    "loans": "Members may borrow up to 12 items at a time. Books are lent for 21 days and DVDs "
             "for 7 days. A loan can be renewed twice online unless another member has reserved "
             "the item.",
    "fines": "Late books cost 20 cents per day, up to a maximum of 5 euros per item. Children's "
             "cards are never fined.",
    "hours": "The central library is open Tuesday to Saturday from 9:30 to 19:00 and on Sunday "
             "from 12:00 to 17:00. It is closed on Mondays.",
    "cards": "A library card is free for residents of the city. Visitors pay 15 euros a year. "
             "You need a photo ID and a proof of address to register.",
    "printing": "Printing costs 10 cents per black-and-white page and 50 cents per colour page. "
                "Scanning to a USB stick is free.",
    "rooms": "Study rooms can be booked for up to 3 hours a day through the library website. "
             "Each room seats six people.",
    "ebooks": "E-books and audiobooks are borrowed through the Libby app with your card number. "
              "Up to 5 e-books can be on loan at once, for 14 days each.",
}


def turn(user, answer, *docs):
    return (user, answer, list(docs))


CHATS = [
    ([turn("How many books can I take out at once?", "You can borrow up to 12 items at a time.",
           "loans"),
      turn("For how long?", "Books are lent for 21 days, DVDs for 7 days.", "loans"),
      turn("Can I extend a loan?",
           "Yes, a loan can be renewed twice online, unless someone has reserved the item.",
           "loans")], []),
    ([turn("When is the central library open on weekends?",
           "On Saturday it is open from 9:30 to 19:00, and on Sunday from 12:00 to 17:00.",
           "hours"),
      turn("Is it open on Monday?", "No, the central library is closed on Mondays.", "hours")],
     []),
    ([turn("I live in the city. What does a library card cost me?",
           "For residents of the city the library card is free.", "cards"),
      turn("What do I need to bring to register?",
           "Bring a photo ID and a proof of address.", "cards"),
      turn("How do I borrow e-books?",
           "E-books are borrowed through the Libby app with your card number.", "ebooks")], []),
    ([turn("How much is printing?",
           "Black-and-white pages cost 10 cents and colour pages 50 cents.", "printing"),
      turn("Is scanning free too?", "Yes, scanning to a USB stick is free.", "printing"),
      turn("Can I book a study room for my group?",
           "Yes, study rooms can be booked on the library website for up to 3 hours a day, and "
           "each seats six people.", "rooms")], []),
    # hallucinations
    ([turn("What is the fine for a late book?", "Late books cost 20 cents per day.", "fines"),
      turn("Is there a maximum?",
           "Yes, the fine stops at 50 euros, and after that your card is blocked for a year.",
           "fines")], [(2, "hallucination")]),
    ([turn("How many e-books can I have at once?",
           "Up to 5 e-books can be on loan at once.", "ebooks"),
      turn("How long do I keep each one?",
           "Each e-book is yours for 60 days and can be renewed as often as you like.",
           "ebooks")], [(2, "hallucination")]),
    # wrong passage
    ([turn("How long can I keep a DVD?", "DVDs are lent for 7 days.", "loans"),
      turn("What happens if I return it late?", "Late items cost 20 cents per day.", "printing")],
     [(2, "wrong_chunk")]),
    # forgets
    ([turn("I am visiting from abroad for a month. Can I get a card?",
           "Yes, visitors can get a card for 15 euros a year.", "cards"),
      turn("What documents do I need?",
           "Since you are a resident of the city, your card is free; bring a photo ID and a proof "
           "of address.", "cards")], [(2, "forgets")]),
    ([turn("We are eight people and need a study room.",
           "Study rooms can be booked on the library website.", "rooms"),
      turn("Will one room fit all of us?",
           "How many people are in your group? Each room seats six.", "rooms")],
     [(2, "forgets")]),
    # unmet ask
    ([turn("Is the library open on Sunday?",
           "Yes, on Sunday it is open from 12:00 to 17:00.", "hours"),
      turn("Can I print in colour there?",
           "The library has many services for members and visitors.", "printing")],
     [(2, "unmet_ask")]),
]


def main():
    out = os.path.join(HERE, "data", "conversations_heldout.jsonl")
    with open(out, "w") as f:
        for n, (turns, faults) in enumerate(CHATS, 1):
            messages = []
            for user, answer, docs in turns:
                messages.append({"type": "human", "content": user})
                messages.append({"type": "ai", "content": answer,
                                 "retrieved_contexts": [DOCS[d] for d in docs],
                                 "retrieved_context_ids": list(docs)})
            f.write(json.dumps({"id": "lib-%02d" % n, "user_input": messages,
                                "faults": [{"turn": t, "kind": k} for t, k in faults]}) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
