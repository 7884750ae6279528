from retrieval_eval.entry import main

main()
