cd experiments && nice -n 10 env OMP_NUM_THREADS=1 PYTHONPATH=../src MATRIXDP_DATA=/work/shared/datasets python pca_step_reuse_check2.py
