export PATH=$HOME/bin:$PATH
