from shokunin.cli import main

main()
